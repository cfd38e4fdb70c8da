import AttestTestSupport
import GatewayPolicy
import Testing

/// Seeded hostile targets against the policy: a target the policy decides is never one an upstream may serve as a
/// path whose own protection is stricter, or that belongs to another app.
struct HostileTargetPropertyTests {
    @Test("20,000 seeded hostile targets: each decided one gets at least every upstream reading's protection")
    func noUpstreamReadingIsStricter() throws {
        let policies = try GatewayPolicyLoaderTests.set([("shop.yaml", GatewayPolicyLoaderTests.shop), ("blog.yaml", GatewayPolicyLoaderTests.blog)])
        var decided = 0
        var refused = 0
        for target in HostileTargets.generate(count: 20_000, seed: 0x4057_11e7_a26e) {
            let decision: RouteDecision?
            do {
                decision = try policies.decide(host: "shop.example", method: "GET", requestTarget: target)
            } catch {
                refused += 1
                continue
            }
            guard let decision else { continue }
            decided += 1
            for reading in HostileTargets.upstreamReadings(of: target) {
                let own = try #require(try policies.decide(host: "shop.example", method: "GET", requestTarget: reading), "\(target) read as \(reading)")
                #expect(own.appId == decision.appId, "\(target) read as \(reading)")
                #expect(own.protection.strictness <= decision.protection.strictness, "\(target) decided \(decision.protection) by \(decision.matched), read as \(reading): \(own.protection)")
            }
        }
        #expect(decided > 1_000 && refused > 1_000, "the generator reaches both outcomes: \(decided) decided, \(refused) refused")
    }
}
