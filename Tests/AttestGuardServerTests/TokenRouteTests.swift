import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import AttestVocabulary
import Crypto
import DeviceSimulator
import Foundation
import HTTPTypes
import Testing

/// Forward-auth on `token` routes: a session token passes without an assertion or a store round trip, with the verdict
/// it was issued with (or scored with its key where the route says `scoreTokens`); an expired, forged, other-app or
/// other-user token, and one whose key was retired, are refused with their codes; `require` routes still demand an
/// assertion.
@Suite("HTTP: token routes")
struct TokenRouteTests {
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
          - path: /api/feed
            methods: [GET]
            protection: token
          - path: /api/search
            methods: [GET]
            protection: token
            scoreTokens: true
            action: search
            review: refuse
          - path: /api/account
            methods: [GET]
            protection: score

        """

    static let rules = """
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: searches-on-a-token
            when: request.action == "search" and request.binding == "session_token"
            score: +5
          - id: mallory-searches-reviewed
            when: request.action == "search" and request.user_id == "mallory"
            decide: review

        """

    static func feed(user: String = "alice", token: String?) -> GatewayAsk {
        var ask = GatewayAsk(method: "GET", target: "/api/feed", body: Data(), user: user)
        if let token { ask.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, token)] }
        return ask
    }

    static func run(
        _ backend: ServerBackend, environment extra: [String: String] = [:], rules ruleText: String = rules, postgresURL: String? = nil,
        wrapStore: @escaping (any RiskStore) -> any RiskStore = { $0 },
        _ body: @escaping @Sendable (APIClient) async throws -> Void
    ) async throws {
        let policies = try ForwardAuthHarness.directory(["shop.yaml": policy])
        let rules = try ForwardAuthHarness.directory(["rules.yaml": ruleText])
        defer {
            try? FileManager.default.removeItem(at: policies)
            try? FileManager.default.removeItem(at: rules)
        }
        let environment = ForwardAuthHarness.environment(policies: policies, rules: rules)
            .merging(SessionTokenRouteTests.environment) { _, new in new }
            .merging(extra) { _, new in new }
        try await ServerHarness.run(backend, extraEnvironment: environment, wrapStore: wrapStore, postgresURL: postgresURL, body)
    }

    /// A token for `app`'s attested key, exchanged through the app-facing route.
    static func token(_ api: APIClient, _ app: inout SimulatedAppClient) async throws -> String {
        let (reply, _) = try await SessionTokenRouteTests.exchange(api, &app)
        try #require(reply.status == 201, "\(reply.text)")
        return try #require(reply["token"] as? String)
    }

    @Test("a valid token passes a token route with the verdict it was issued with; no token is 401 session_token_missing")
    func passes() async throws {
        try await Self.run(.sqlite) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let token = try await Self.token(api, &app)

            for _ in 0..<3 {
                let passed = try await api.forwardAuth(Self.feed(token: token))
                #expect(passed.status == 200, "\(passed.text)")
                #expect(passed.header("X-AttestGuard-Decision") == "allow")
                #expect(passed.header("X-AttestGuard-Binding") == "session_token")
                #expect(passed.header("X-AttestGuard-Protection") == "token")
                #expect(passed.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
                #expect(passed.header("X-AttestGuard-Rule-Set")?.hasPrefix("sha256:") == true)
                // Reusable for the retired-key refresh period (10 s by default), the token living longer.
                #expect(passed.header("Cache-Control") == "max-age=10")
            }

            let missing = try await api.forwardAuth(Self.feed(token: nil))
            #expect(missing.status == 401)
            #expect(missing.header("X-AttestGuard-Status") == "401")
            #expect(missing.header("WWW-Authenticate") == #"AppAttest error="session_token_missing""#)
            #expect(missing.header("Cache-Control") == "no-store")

            // The retired keys were read at start, and the metrics say when.
            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            #expect(metrics.contains("\nattestguard_retired_keys_last_read_timestamp_seconds "))
            #expect(metrics.contains("\nattestguard_retired_keys_held "))

            // An assertion passes a token route too; a token never passes a require route.
            let asserted = try await api.forwardAuth(try await api.signed(Self.feed(token: nil), by: &app))
            #expect(asserted.status == 200, "\(asserted.text)")
            #expect(asserted.header("X-AttestGuard-Binding") == "v1")
            #expect(asserted.header("Cache-Control") == "no-store")
            var claim = GatewayAsk(target: "/api/promos/claim")
            claim.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, token)]
            let required = try await api.forwardAuth(claim)
            #expect(required.status == 401)
            #expect(required.errorCode == "assertion_missing")
        }
    }

    @Test("expired, forged, malformed, other-app and other-user tokens are refused with their codes")
    func refusals() async throws {
        try await Self.run(.sqlite) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let token = try await Self.token(api, &app)
            let exchange = try #require(api.engine?.sessionTokens)
            let service = try #require(exchange.service)

            func refused(_ ask: GatewayAsk, _ code: String, status: String = "401") async throws {
                let reply = try await api.forwardAuth(ask)
                #expect(reply.status == 401, "\(code): \(reply.text)")
                #expect(reply.errorCode == code)
                #expect(reply.header("X-AttestGuard-Status") == status, "\(code)")
                #expect(reply.header("WWW-Authenticate") == #"AppAttest error="\#(code)""#)
            }

            try await refused(Self.feed(user: "bob", token: token), "key_user_mismatch", status: "422")

            // The same claims signed by a key the server does not publish.
            let claims = try await service.verify(token, appId: ServerHarness.appId).get()
            let stranger = SessionTokenService(keys: SessionTokenKeys(signing: P256.Signing.PrivateKey()), clock: api.clock, clockSkew: 0)
            let grant = SessionTokenGrant(
                appId: ServerHarness.appId, keyId: try KeyId(bytes: Data(app.key.keyId)), userHash: claims.usr, environment: .development,
                verdict: RiskVerdict(decision: .allow, score: 0, reasons: [], ruleSetVersion: "none")
            )
            try await refused(Self.feed(token: try await stranger.issue(grant, lifetime: 300).token), "session_token_invalid")
            // A token the server signed, for another app.
            var elsewhere = grant
            elsewhere.appId = ServerHarness.productionOnlyAppId
            try await refused(Self.feed(token: try await service.issue(elsewhere, lifetime: 300).token), "session_token_app_mismatch")
            // Not a token at all, a token with its signature cut, and one longer than any token.
            try await refused(Self.feed(token: "not-a-token"), "session_token_invalid")
            try await refused(Self.feed(token: String(token.dropLast(4))), "session_token_invalid")
            try await refused(Self.feed(token: String(repeating: "a", count: 2_049)), "session_token_invalid")

            api.clock.advance(by: 295)
            let late = try await api.forwardAuth(Self.feed(token: token))
            #expect(late.status == 200)
            #expect(late.header("Cache-Control") == "max-age=5", "never reusable past the token's expiry")
            api.clock.advance(by: 4.5)
            let last = try await api.forwardAuth(Self.feed(token: token))
            #expect(last.status == 200)
            #expect(last.header("Cache-Control") == "no-store", "under a second left: not reusable")
            api.clock.advance(by: 0.5)
            api.clock.advance(by: 1 + 120)  // to the expiry plus the 120 s clock-skew tolerance (clockSkewSeconds)
            try await refused(Self.feed(token: token), "session_token_expired")
        }
    }

    @Test("a route with scoreTokens scores the request with the token's key; its verdict refuses as the route says")
    func scored() async throws {
        try await Self.run(.sqlite) { api in
            var alice = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(alice).status == 201)
            let token = try await Self.token(api, &alice)
            var search = Self.feed(token: token)
            search.target = "/api/search?q=shoes"
            let passed = try await api.forwardAuth(search)
            #expect(passed.status == 200, "\(passed.text)")
            #expect(passed.header("X-AttestGuard-Reasons")?.split(separator: ",").contains("searches-on-a-token") == true)
            #expect(passed.header("X-AttestGuard-Score") == "5")
            #expect(passed.header("X-AttestGuard-Binding") == "session_token")
            #expect(passed.header("X-AttestGuard-Key-Id") == alice.key.keyIdBase64)
            #expect(passed.header("Cache-Control") == "no-store", "a scored answer is this request's alone")

            var mallory = SimulatedApps.make(user: "mallory", device: "mallory-phone")
            #expect(try await api.attest(mallory).status == 201)
            var malloryAsk = Self.feed(user: "mallory", token: try await Self.token(api, &mallory))
            malloryAsk.target = "/api/search?q=promo"
            let reviewed = try await api.forwardAuth(malloryAsk)
            #expect(reviewed.status == 403, "\(reviewed.text)")
            #expect(reviewed.errorCode == "request_denied")
            #expect(reviewed.header("X-AttestGuard-Decision") == "review")
        }
    }

    @Test("a revoked or superseded key's tokens stop passing at once on the process that retired it")
    func retiredHere() async throws {
        try await Self.run(.sqlite) { api in
            var phone = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(phone).status == 201)
            let token = try await Self.token(api, &phone)
            #expect(try await api.forwardAuth(Self.feed(token: token)).status == 200)
            let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(phone.key.keyIdBase64URL)/revoke"
            #expect(try await api.send(.post, keyPath, apiKey: ServerHarness.adminKey).status == 200)
            let revoked = try await api.forwardAuth(Self.feed(token: token))
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "key_revoked")

            var tablet = SimulatedApps.make(user: "alice", device: "alice-tablet")
            #expect(try await api.attest(tablet).status == 201)
            let tabletToken = try await Self.token(api, &tablet)
            #expect(try await api.forwardAuth(Self.feed(token: tabletToken)).status == 200)
            // The app reinstalled on the same device attests a new key, which supersedes the old one.
            let reinstalled = SimulatedApps.make(user: "alice", device: "alice-tablet", keyIndex: 1)
            #expect(try await api.attest(reinstalled).status == 201)
            let superseded = try await api.forwardAuth(Self.feed(token: tabletToken))
            #expect(superseded.errorCode == "key_superseded", "\(superseded.text)")
        }
    }

    @Test("a key revoked through one server stops its tokens on another sharing the store within the refresh period",
          .enabled(if: TestPostgres.isEnabled, "no PostgreSQL"))
    func retiredElsewhere() async throws {
        let url = try #require(try await ServerHarness.databaseURL(.postgres))
        let environment = ["ATTESTGUARD_SESSION_TOKENS_REVOCATION_REFRESH_SECONDS": "1"]
        try await Self.run(.postgres, environment: environment, postgresURL: url) { first in
            try await Self.run(.postgres, environment: environment, postgresURL: url) { second in
                var app = SimulatedApps.make(user: "alice", device: "alice-phone")
                #expect(try await first.attest(app).status == 201)
                let token = try await Self.token(first, &app)
                #expect(try await second.forwardAuth(Self.feed(token: token)).status == 200)

                let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)/revoke"
                #expect(try await first.send(.post, keyPath, apiKey: ServerHarness.adminKey).status == 200)
                // One refresh period is a second; the bound is wide for a busy machine, the answer comes long before.
                let deadline = ContinuousClock.now + .seconds(60)
                var code: String?
                while code != "key_revoked", ContinuousClock.now < deadline {
                    code = try await second.forwardAuth(Self.feed(token: token)).errorCode
                    if code != "key_revoked" { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(code == "key_revoked", "the second server never read the revocation")
            }
        }
    }

    @Test("monitor mode passes a token route's missing or refused token, marked; a token route of an app without tokens does not load")
    func monitorAndConfiguration() async throws {
        try await Self.run(.sqlite, environment: ["ATTESTGUARD_APPS_MAIN_MODE": "monitor"]) { api in
            let missing = try await api.forwardAuth(Self.feed(token: nil))
            #expect(missing.status == 200, "\(missing.text)")
            #expect(missing.header("X-AttestGuard-Monitor") == "session_token_missing")
            let forged = try await api.forwardAuth(Self.feed(token: "not-a-token"))
            #expect(forged.status == 200, "\(forged.text)")
            #expect(forged.header("X-AttestGuard-Monitor") == "session_token_invalid")
        }
        await #expect {
            try await Self.run(.sqlite, environment: ["ATTESTGUARD_APPS_MAIN_SESSION_TOKENS_ENABLED": "false"]) { _ in }
        } throws: { error in
            (error as? ConfigurationError)?.key == "gateway.policyDirectory" && String(describing: error).contains("issues no session tokens")
        }
    }

    @Test("a token issued while the app monitored a request the rules denied is refused once the app enforces")
    func monitorThenEnforce() async throws {
        let denyAll = "version: 1\nrules:\n  - id: nobody-gets-a-session\n    when: request.action == \"session_token\"\n    decide: deny\n"
        try await Self.run(.sqlite, environment: ["ATTESTGUARD_APPS_MAIN_MODE": "monitor"], rules: denyAll) { api in
            var app = SimulatedApps.make(user: "mallory", device: "mallory-phone")
            #expect(try await api.attest(app).status == 201)
            let token = try await Self.token(api, &app)
            let monitored = try await api.forwardAuth(Self.feed(user: "mallory", token: token))
            #expect(monitored.status == 200, "\(monitored.text)")
            #expect(monitored.header("X-AttestGuard-Decision") == "allow")
            let change = Data(#"{"mode":"enforce"}"#.utf8)
            let stored = try await api.send(.put, "/v1/admin/apps/\(ServerHarness.appId)/policy", body: change, apiKey: ServerHarness.adminKey)
            #expect(stored.status == 200, "\(stored.text)")
            let enforced = try await api.forwardAuth(Self.feed(user: "mallory", token: token))
            #expect(enforced.status == 403, "\(enforced.text)")
            #expect(enforced.errorCode == "request_denied")
        }
    }

    @Test("a token route answers while the store fails key reads, scoring facts and retired-key reads")
    func withoutTheStore() async throws {
        try await Self.run(.sqlite, wrapStore: { FaultyScoringStore($0) }) { api in
            let store = try #require(api.engine?.store as? FaultyScoringStore)
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let token = try await Self.token(api, &app)
            let down = StoreError(.unavailable, "injected: the database stopped answering")
            store.failKeyLookups(with: down)
            store.failScoring(with: down)
            store.failRetiredKeys(with: down)
            let passed = try await api.forwardAuth(Self.feed(token: token))
            #expect(passed.status == 200, "\(passed.text)")
            #expect(passed.header("X-AttestGuard-Decision") == "allow")
        }
    }

    @Test("a server that could not read the retired keys at start refuses tokens with 503 until it does")
    func retiredKeysUnread() async throws {
        let environment = ["ATTESTGUARD_SESSION_TOKENS_REVOCATION_REFRESH_SECONDS": "1"]
        try await Self.run(.sqlite, environment: environment, wrapStore: { store in
            let wrapped = FaultyScoringStore(store)
            wrapped.failRetiredKeys(with: StoreError(.unavailable, "injected: the database stopped answering"))
            return wrapped
        }) { api in
            let store = try #require(api.engine?.store as? FaultyScoringStore)
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let token = try await Self.token(api, &app)
            let unread = try await api.forwardAuth(Self.feed(token: token))
            #expect(unread.status == 403, "\(unread.text)")
            #expect(unread.header("X-AttestGuard-Status") == "503")
            #expect(unread.errorCode == "store_unavailable")
            #expect(unread.header("Retry-After") == "5")
            #expect(unread.header("Cache-Control") == "no-store")
            // An assertion does not need the set.
            #expect(try await api.forwardAuth(try await api.signed(Self.feed(token: nil), by: &app)).status == 200)

            store.failRetiredKeys(with: nil)
            // One refresh period is a second; the bound is wide for a busy machine, the answer comes long before.
            let deadline = ContinuousClock.now + .seconds(60)
            var status = unread.status
            while status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                status = try await api.forwardAuth(Self.feed(token: token)).status
            }
            #expect(status == 200, "the retired keys were never read")
        }
    }
}
