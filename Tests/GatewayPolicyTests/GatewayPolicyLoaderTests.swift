import Foundation
import GatewayPolicy
import RiskRules
import Testing

/// Policy files load into decisions by host, path prefix, method and route, with the app's default for the rest;
/// a broken file is refused whole, each problem at its line.
struct GatewayPolicyLoaderTests {
    static let shop = """
        version: 1
        app: ABCDE12345.com.example.shop
        hosts: [shop.example]
        default: require
        review: refuse
        routes:
          - { path: /api/promos/claim, methods: [POST], protection: require, action: claim_promo }
          - { path: /api/orders, methods: [POST], protection: require-for-rollout, action: purchase, review: pass }
          - { path: /api/catalog/**, methods: [GET, HEAD], protection: open }
          - { path: /api/catalog/*/reviews, methods: [POST], protection: score, action: write_review }
        """

    static let blog = """
        version: 1
        app: ABCDE12345.com.example.blog
        hosts: [shop.example]
        pathPrefix: /blog
        default: open
        """

    static func set(_ documents: [(String, String)]) throws(RuleSetLoadFailure) -> GatewayPolicySet {
        try GatewayPolicyLoader.compile(documents: documents.map { (path: $0.0, text: $0.1) })
    }

    @Test("requests get their app's route, the most specific one, or the app's default")
    func decisions() throws {
        let policies = try Self.set([("shop.yaml", Self.shop), ("blog.yaml", Self.blog)])
        let claim = try #require(try policies.decide(host: "SHOP.example:443", method: "post", requestTarget: "/api//promos/claim/?x"))
        #expect(claim.appId == "ABCDE12345.com.example.shop")
        #expect(claim.protection == .require && claim.action == "claim_promo" && claim.review == .refuse)
        #expect(claim.matched == "shop.yaml:7")
        let order = try #require(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/orders"))
        #expect(order.protection == .requireForRollout && order.review == .pass)
        #expect(try policies.decide(host: "shop.example", method: "GET", requestTarget: "/api/catalog/shoes")?.protection == .open)
        #expect(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/catalog/shoes/reviews")?.action == "write_review")
        // The catalog is open for reading only: a POST elsewhere in it falls to the default.
        let write = try #require(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/api/catalog/shoes"))
        #expect(write.protection == .require && write.matched == "shop.yaml: default")
        #expect(try policies.decide(host: "shop.example", method: "GET", requestTarget: "/api/account")?.protection == .require)
        // The blog owns its longer prefix, and only that.
        #expect(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/blog/comments")?.appId == "ABCDE12345.com.example.blog")
        #expect(try policies.decide(host: "shop.example", method: "POST", requestTarget: "/blogger")?.appId == "ABCDE12345.com.example.shop")
        #expect(try policies.decide(host: "other.example", method: "GET", requestTarget: "/api/catalog") == nil)
    }

    @Test("a target servers may read as another path is asked for an assertion, whatever its route", arguments: [
        "/api/catalog/..;/account", "/api/catalog/x;jsessionid=1", "/api/catalog/..%2Fpromos%2Fclaim", "/api/catalog/..%5cpromos",
        "/api/catalog/..\\promos", "/api/catalog/x#/../../promos/claim",
    ])
    func ambiguousTargets(target: String) throws {
        let policies = try Self.set([("shop.yaml", Self.shop)])
        let decision = try #require(try policies.decide(host: "shop.example", method: "GET", requestTarget: target))
        #expect(decision.protection == .require, "\(target): \(decision.matched)")
        #expect(decision.matched.hasSuffix("made require: the target is ambiguous"))
        #expect(RequestPath(requestTarget: target).isAmbiguous)
        #expect(!RequestPath(requestTarget: "/api/catalog/shoes?a=1;b=2").isAmbiguous, "a ; in the query is not in the path")
    }

    @Test("a target whose normalised path an upstream may not serve is refused before any app or route", arguments: [
        ("/admin/x://h/api/catalog/z", RequestPath.Refusal.schemeInPath), ("/admin/../api/catalog/z", .dotSegment),
        ("/api/promos/claim/%2e%2e/%2e%2e/%2e%2e/api/catalog/x", .dotSegment), ("/api/promos/claim/.%2E/../catalog/x", .dotSegment),
        ("/api/./catalog/x", .dotSegment), ("//h/api/promos/claim", .networkPath), ("https://shop.example//api/catalog/x", .networkPath),
        ("/blog/x://h/api/catalog/x", .schemeInPath),
    ])
    func refusedTargets(target: String, refusal: RequestPath.Refusal) throws {
        let policies = try Self.set([("shop.yaml", Self.shop), ("blog.yaml", Self.blog)])
        #expect(throws: RefusedRequestTarget(refusal: refusal)) { try policies.decide(host: "shop.example", method: "GET", requestTarget: target) }
        // An absolute-form target keeps its scheme at the start only, and a `://` in the query is no part of the path.
        #expect(try policies.decide(host: "shop.example", method: "GET", requestTarget: "https://shop.example/api/catalog/x")?.protection == .open)
        #expect(try policies.decide(host: "shop.example", method: "GET", requestTarget: "/api/catalog/x?next=https://h/")?.protection == .open)
    }

    @Test("token routes: scoreTokens per route or for the whole app, false unless written; a bad value is a problem")
    func tokenRoutes() throws {
        let feed = """
            version: 1
            app: ABCDE12345.com.example.feed
            hosts: [feed.example]
            default: token
            routes:
              - { path: /api/feed, methods: [GET], protection: token }
              - { path: /api/search, methods: [GET], protection: token, scoreTokens: true, action: search }
            """
        let policies = try Self.set([("feed.yaml", feed)])
        let plain = try #require(try policies.decide(host: "feed.example", method: "GET", requestTarget: "/api/feed?page=2"))
        #expect(plain.protection == .token && !plain.scoresTokens)
        let search = try #require(try policies.decide(host: "feed.example", method: "GET", requestTarget: "/api/search"))
        #expect(search.protection == .token && search.scoresTokens && search.action == "search")
        #expect(try policies.decide(host: "feed.example", method: "POST", requestTarget: "/api/other")?.protection == .token)
        let scoring = try Self.set([("feed.yaml", feed.replacingOccurrences(of: "default: token", with: "default: token\nscoreTokens: true"))])
        #expect(try scoring.decide(host: "feed.example", method: "GET", requestTarget: "/api/feed")?.scoresTokens == true)
        #expect(try scoring.decide(host: "feed.example", method: "GET", requestTarget: "/api/unlisted")?.scoresTokens == true)
        // An ambiguous target is asked for an assertion on a token route too.
        #expect(try policies.decide(host: "feed.example", method: "GET", requestTarget: "/api/feed;x=1")?.protection == .require)
        #expect(RouteProtection.token.strictness > RouteProtection.score.strictness)
        #expect(RouteProtection.token.strictness < RouteProtection.require.strictness)
        do {
            _ = try Self.set([("feed.yaml", feed.replacingOccurrences(of: "scoreTokens: true", with: "scoreTokens: sometimes"))])
            Issue.record("a bad scoreTokens loaded")
        } catch {
            #expect(error.errors.map { "\($0.line):\($0.code.rawValue)" } == ["7:invalid_field"], "\(error.errors)")
        }
    }

    @Test("a broken file is refused whole, every problem at its line and with its code")
    func problems() throws {
        let broken = """
            version: 2
            app: not an app id
            hosts: [shop.example]
            colour: blue
            routes:
              - { path: api/orders, protection: require }
              - { path: /api/x, protection: always }
              - { path: /api/y, methods: [FETCH], protection: open }
              - { methods: [GET] }
              - { path: /api/z, protection: score, action: "" }
            """
        do {
            _ = try Self.set([("broken.yaml", broken)])
            Issue.record("a broken file loaded")
        } catch {
            let found = error.errors.map { "\($0.line):\($0.code.rawValue)" }
            #expect(found == ["1:invalid_field", "2:invalid_field", "4:unknown_field", "6:invalid_field", "7:invalid_field", "8:invalid_field",
                              "9:missing_field", "10:invalid_field"], "\(error.errors)")
        }
    }

    @Test("two files claiming one host and prefix, or one app twice, are problems; a missing app is one")
    func conflicts() throws {
        let twin = Self.blog.replacingOccurrences(of: "example.blog", with: "example.news")
        #expect(throws: RuleSetLoadFailure.self) { try Self.set([("blog.yaml", Self.blog), ("news.yaml", twin)]) }
        #expect(throws: RuleSetLoadFailure.self) { try Self.set([("shop.yaml", Self.shop), ("again.yaml", Self.shop.replacingOccurrences(of: "shop.example", with: "b.example"))]) }
        #expect(throws: RuleSetLoadFailure.self) { try Self.set([("none.yaml", "version: 1\nhosts: [a.example]\n")]) }
        #expect(throws: RuleSetLoadFailure.self) { try Self.set([("list.yaml", "- 1\n- 2\n")]) }
    }

    @Test("the shipped example policy loads, and the version names its content")
    func shippedExample() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Gateway/policy").path
        let policies = try GatewayPolicyLoader.load(directory: directory)
        #expect(!policies.apps.isEmpty)
        #expect(policies.version.hasPrefix("sha256:"))
        let again = try GatewayPolicyLoader.load(directory: directory)
        #expect(again.version == policies.version)
    }
}
