import AttestGuardWire
import AttestCore
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import DeviceSimulator
import Crypto
import Foundation
import HTTPTypes

/// What forward-auth tests share: a gateway API key, a route policy and a rule set written for them, and a way to
/// ask forward-auth about a request as a gateway would.
enum ForwardAuthHarness {
    static let gatewayKey = "test-edge-key-0123456789"
    /// A gateway key limited to another app than the one the policy directory names.
    static let otherAppGatewayKey = "test-other-edge-key-0123456789"
    /// An admin key limited to another app than the one the policy directory names.
    static let narrowAdminKey = "test-narrow-admin-key-0123456789"

    static let policy = """
        version: 1
        app: \(ServerHarness.appId)
        hosts: [localhost]
        pathPrefix: /
        default: require
        review: pass
        routes:
          - path: /api/promos/claim
            methods: [POST]
            protection: require
            action: claim_promo
            review: refuse
          - path: /api/orders
            methods: [POST]
            protection: require-for-rollout
            action: purchase
          - path: /api/catalog/**
            methods: [GET, HEAD]
            protection: open
          - path: /api/account
            methods: [GET]
            protection: score
            action: view_account
          - path: /api/profile
            methods: [GET]
            protection: score
            action: view_profile
            review: refuse

        """

    static let rules = """
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: claims-by-mallory
            when: request.action == "claim_promo" and request.user_id == "mallory"
            decide: deny
            reason: "mallory may not claim"
          - id: profile-views-reviewed
            when: request.action == "view_profile"
            decide: review
            reason: "profile views are reviewed"

        """

    /// A fresh directory holding `files` (name: text).
    static func directory(_ files: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return directory
    }

    /// The server's environment: the gateway key (scope `gateway`), the policy and rule directories, and the app's
    /// attestation-required percentage.
    static func environment(policies: URL, rules: URL, requiredPercent: Int = 0) -> [String: String] {
        [
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,edge,otheredge,narrowadmin",
            "ATTESTGUARD_API_KEYS_NARROWADMIN_SECRET_ENV": "TEST_NARROW_ADMIN_KEY",
            "ATTESTGUARD_API_KEYS_NARROWADMIN_SCOPES": "admin",
            "ATTESTGUARD_API_KEYS_NARROWADMIN_APPS": ServerHarness.productionOnlyAppId,
            "TEST_NARROW_ADMIN_KEY": narrowAdminKey,
            "ATTESTGUARD_API_KEYS_EDGE_SECRET_ENV": "TEST_EDGE_KEY",
            "ATTESTGUARD_API_KEYS_EDGE_SCOPES": "gateway",
            "TEST_EDGE_KEY": gatewayKey,
            "ATTESTGUARD_API_KEYS_OTHEREDGE_SECRET_ENV": "TEST_OTHER_EDGE_KEY",
            "ATTESTGUARD_API_KEYS_OTHEREDGE_SCOPES": "gateway",
            "ATTESTGUARD_API_KEYS_OTHEREDGE_APPS": ServerHarness.productionOnlyAppId,
            "TEST_OTHER_EDGE_KEY": otherAppGatewayKey,
            "ATTESTGUARD_GATEWAY_POLICY_DIRECTORY": policies.path,
            "ATTESTGUARD_RULES_DIRECTORY": rules.path,
            "ATTESTGUARD_APPS_MAIN_ATTESTATION_REQUIRED_PERCENT": String(requiredPercent),
            "ATTESTGUARD_CONSOLE_SESSION_SECRET_ENV": "TEST_CONSOLE_SECRET",
            "TEST_CONSOLE_SECRET": "a-console-session-secret-of-32-characters",
            // The suite shares two cores with every other: no request may run into forward-auth's deadline here.
            "ATTESTGUARD_GATEWAY_ANSWER_WITHIN_MILLISECONDS": "60000",
        ]
    }

    /// Runs `body` with a directory holding the harness's policy and one holding `rules`, both removed afterwards.
    static func withDirectories(rules ruleText: String = rules, _ body: (_ policies: URL, _ rules: URL) async throws -> Void) async throws {
        let policies = try directory(["shop.yaml": policy])
        let rules = try directory(["rules.yaml": ruleText])
        defer {
            try? FileManager.default.removeItem(at: policies)
            try? FileManager.default.removeItem(at: rules)
        }
        try await body(policies, rules)
    }

    /// Runs `body` against a server with the harness's policy and rules.
    static func run(
        _ backend: ServerBackend,
        requiredPercent: Int = 0,
        extraEnvironment: [String: String] = [:],
        wrapStore: @escaping (any RiskStore) -> any RiskStore = { $0 },
        _ body: @escaping @Sendable (APIClient, URL) async throws -> Void
    ) async throws {
        try await withDirectories { policies, rules in
            try await ServerHarness.run(
                backend,
                extraEnvironment: environment(policies: policies, rules: rules, requiredPercent: requiredPercent).merging(extraEnvironment) { _, new in new },
                wrapStore: wrapStore
            ) { api in
                try await body(api, policies)
            }
        }
    }
}

/// One protected request as the gateway describes it to forward-auth.
struct GatewayAsk {
    var method = "POST"
    var target = "/api/orders"
    var body = Data(#"{"item":"sku-1"}"#.utf8)
    var user: String? = "alice"
    var ip: String? = "203.0.113.7"
    /// Whether the gateway hashed the body (nginx with njs does; Caddy cannot).
    var hashesBody = true
    var assertion: AssertionRequestBody?
    var extraHeaders: [(String, String)] = []
    var apiKey: String? = ForwardAuthHarness.gatewayKey

    var headers: HTTPFields {
        var headers = HTTPFields()
        if let apiKey { headers[.authorization] = "Bearer \(apiKey)" }
        headers[HTTPField.Name("X-Original-Method")!] = method
        headers[HTTPField.Name("X-Original-URI")!] = target
        if let user { headers[HTTPField.Name("X-AttestGuard-User")!] = user }
        if let ip { headers[HTTPField.Name("X-AttestGuard-Client-IP")!] = ip }
        if hashesBody { headers[HTTPField.Name("X-AttestGuard-Body-Sha256")!] = Base64Text.urlEncoded(SHA256.hash(data: body)) }
        for (name, value) in assertion?.appAttestHeaders ?? [] { headers[HTTPField.Name(name.rawValue)!] = value }
        for (name, value) in extraHeaders { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return headers
    }
}

extension APIClient {
    /// Asks forward-auth about `ask`, as nginx's `auth_request` does (a GET without the body).
    func forwardAuth(_ ask: GatewayAsk) async throws -> Reply {
        try await send(.get, "/v1/gateway/auth", apiKey: nil, headers: ask.headers)
    }

    /// A fresh assertion challenge for `app`'s key, and `app`'s signature over `ask`'s request with it.
    func signed(_ ask: GatewayAsk, by app: inout SimulatedAppClient) async throws -> GatewayAsk {
        let challenge = try await challenge(purpose: "assertion", appId: app.app.appId, userId: app.userId, keyId: app.key.keyIdBase64)
        var ask = ask
        ask.assertion = app.assertion(challenge: challenge, method: ask.method, path: ask.target, body: ask.body)
        return ask
    }
}

extension APIClient.Reply {
    /// A response header by name (joined with `, ` when repeated).
    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
