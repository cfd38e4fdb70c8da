import GatewayPolicy
import Testing

/// Run-time route protection changes on top of the policy files.
@Suite("Gateway policy: run-time protection overrides")
struct RouteProtectionOverridesTests {
    static func policies() throws -> GatewayPolicySet {
        try GatewayPolicyLoaderTests.set([("shop.yaml", GatewayPolicyLoaderTests.shop)])
    }

    @Test("a route's stored protection replaces the file's for that path only; the default likewise")
    func overrides() throws {
        let policies = try Self.policies()
        let changes = RouteProtectionOverrides(defaultProtection: .score, routes: ["/api/promos/claim": .open])
        let lookup: (String) -> RouteProtectionOverrides? = { $0 == "ABCDE12345.com.example.shop" ? changes : nil }
        let claim = try #require(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/promos/claim", overrides: lookup))
        #expect(claim.protection == .open)
        #expect(claim.action == "claim_promo", "only the protection changes")
        #expect(claim.matched == "shop.yaml:7, open set at run time")
        // A matched route the change does not name keeps its file protection (not the changed default).
        #expect(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/orders", overrides: lookup)?.protection == .requireForRollout)
        let unmatched = try #require(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/catalog/shoes", overrides: lookup))
        #expect(unmatched.protection == .score)
        // Without changes, the files decide.
        #expect(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/promos/claim")?.protection == .require)
    }

    @Test("an ambiguous target is still asked for an assertion when its route was opened at run time")
    func ambiguousStaysRequired() throws {
        let policies = try Self.policies()
        let lookup: (String) -> RouteProtectionOverrides? = { _ in RouteProtectionOverrides(routes: ["/api/catalog/**": .open]) }
        let decision = try #require(try policies.decide(host: "shop.example", method: "GET", requestTarget: "/api/catalog/..;/account", overrides: lookup))
        #expect(decision.protection == .require)
    }

    @Test("stored words this build does not know keep the file's protection")
    func unknownWords() {
        let read = RouteProtectionOverrides(defaultProtection: "sometimes", routes: ["/a": "open", "/b": "never"])
        #expect(read == RouteProtectionOverrides(routes: ["/a": .open]))
    }
}
