import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import AttestVocabulary
import DeviceSimulator
import Foundation
import HTTPTypes
import Testing

/// Debug tokens: an admin makes, lists and revokes them for an app that accepts them; forward-auth admits one on
/// `require` and `token` routes as a key of its own kind (`key.kind` = `debug`, binding `debug_token`), refuses a
/// revoked, expired or unknown one with its code, and an app that accepts none refuses every one.
@Suite("HTTP: debug tokens")
struct DebugTokenRouteTests {
    static let accepting = [
        "ATTESTGUARD_APPS_MAIN_ENVIRONMENTS": "development",
        "ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED": "true",
        "ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_MAX_LIFETIME_DAYS": "10",
    ]
    static let path = "/v1/admin/apps/\(ServerHarness.appId)/debug-tokens"

    static func claim(_ secret: String?, user: String = "alice") -> GatewayAsk {
        var ask = GatewayAsk(target: "/api/promos/claim", user: user)
        if let secret { ask.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, secret)] }
        return ask
    }

    /// A new token of the main app: its secret and id.
    static func create(_ api: APIClient, name: String = "alice-simulator", days: Int? = nil) async throws -> (secret: String, id: String) {
        var body: [String: Any] = ["name": name]
        if let days { body["lifetimeDays"] = days }
        let made = try await api.post(path, json: body, apiKey: ServerHarness.adminKey)
        try #require(made.status == 201, "\(made.text)")
        let token = try #require(made["token"] as? [String: Any])
        return (try #require(made["secret"] as? String), try #require(token["id"] as? String))
    }

    @Test("an admin makes a token shown once, lists it with its uses and revokes it; it passes require and token routes until then")
    func lifecycle() async throws {
        try await TokenRouteTests.run(.sqlite, environment: Self.accepting) { api in
            let engine = try #require(api.engine)
            let made = try await api.post(Self.path, json: ["name": "alice-simulator", "lifetimeDays": 3], apiKey: ServerHarness.adminKey)
            #expect(made.status == 201, "\(made.text)")
            #expect(made.header("Cache-Control") == "no-store")
            let secret = try #require(made["secret"] as? String)
            #expect(secret.hasPrefix("agdt_") && secret.utf8.count == 48)
            let shown = try #require(made["token"] as? [String: Any])
            let id = try #require(shown["id"] as? String)
            #expect(id.hasPrefix("dbg_"))
            #expect(shown["state"] as? String == "active")
            #expect(shown["createdBy"] as? String == "operator")
            #expect(shown["expiresAt"] as? String == RFC3339.format(api.clock.now().addingTimeInterval(3 * 86_400)))

            for ask in [Self.claim(secret), TokenRouteTests.feed(token: secret)] {
                let passed = try await api.forwardAuth(ask)
                #expect(passed.status == 200, "\(passed.text)")
                #expect(passed.header("X-AttestGuard-Binding") == "debug_token")
                #expect(passed.header("X-AttestGuard-Key-Id") == nil)
                #expect(passed.header("Cache-Control") == "no-store")
            }

            // The decision log marks both: what stood for the key, and which token.
            try await engine.scorer.decisionLog.flush()
            let logged = try await engine.store.decisions(since: .distantPast, after: nil, limit: 10)
            #expect(logged.count == 2)
            for entry in logged {
                let signals = try #require(try JSONSerialization.jsonObject(with: Data(entry.signals.utf8)) as? [String: Any])
                #expect(signals["key.kind"] as? String == "debug")
                #expect(signals["key.debug_token"] as? String == id)
                #expect(signals["request.binding"] as? String == "debug_token")
                #expect(entry.keyId == nil)
            }

            // Uses are counted in memory and shown before and after the write behind the requests.
            for flushed in [false, true] {
                if flushed { try await engine.debugTokens.uses.flush() }
                let listed = try await api.send(.get, Self.path, apiKey: ServerHarness.adminKey)
                #expect(listed.status == 200, "\(listed.text)")
                let tokens = try #require(listed["tokens"] as? [[String: Any]])
                #expect(tokens.count == 1)
                #expect(tokens.first?["uses"] as? Int == 2)
                #expect(tokens.first?["lastUsedAt"] as? String == RFC3339.format(api.clock.now()))
                #expect(tokens.first?["secret"] == nil && !listed.text.contains(secret))
            }
            let stored = try #require(try await engine.store.debugTokens(appId: ServerHarness.appId, limit: 10).first)
            #expect(stored.uses == 2)

            let revoked = try await api.post("\(Self.path)/\(id)/revoke", json: [:], apiKey: ServerHarness.adminKey)
            #expect(revoked.status == 200, "\(revoked.text)")
            #expect(revoked["state"] as? String == "revoked")
            let refused = try await api.forwardAuth(Self.claim(secret))
            #expect(refused.status == 401)
            #expect(refused.errorCode == "debug_token_revoked")
            #expect(refused.header("X-AttestGuard-Status") == "401")

            let unknown = try await api.post("\(Self.path)/dbg_AAAAAAAAAAAA/revoke", json: [:], apiKey: ServerHarness.adminKey)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "debug_token_not_found")
        }
    }

    @Test("expired, unknown and malformed tokens are refused with their codes; bad bodies and other keys are refused")
    func refusals() async throws {
        try await TokenRouteTests.run(.sqlite, environment: Self.accepting) { api in
            let (secret, _) = try await Self.create(api, days: 1)
            #expect(try await api.forwardAuth(Self.claim(secret)).status == 200)
            api.clock.advance(by: 86_400)
            let expired = try await api.forwardAuth(Self.claim(secret))
            #expect(expired.status == 401)
            #expect(expired.errorCode == "debug_token_expired")
            let listed = try await api.send(.get, Self.path, apiKey: ServerHarness.adminKey)
            #expect((listed["tokens"] as? [[String: Any]])?.first?["state"] as? String == "expired")

            let (other, _) = try await Self.create(api)
            var guessed = Array(other)
            guessed[10] = guessed[10] == "A" ? "B" : "A"
            for forged in [String(guessed), "agdt_short", "agdt_" + String(repeating: "=", count: 43)] {
                let refused = try await api.forwardAuth(Self.claim(forged))
                #expect(refused.status == 401, "\(forged)")
                #expect(refused.errorCode == "debug_token_invalid", "\(forged)")
            }

            // A require route reads only debug tokens from the header: anything else there is no assertion.
            let oversized = try await api.forwardAuth(Self.claim(String(repeating: "e", count: 3_000)))
            #expect(oversized.status == 401 && oversized.errorCode == "assertion_missing", "\(oversized.text)")

            for (body, code) in [
                (["name": "x", "lifetimeDays": 11] as [String: Any], "invalid_field"), (["name": "x", "lifetimeDays": 0], "invalid_field"),
                (["name": ""], "missing_field"), (["lifetimeDays": 2], "missing_field"),
            ] {
                let refused = try await api.post(Self.path, json: body, apiKey: ServerHarness.adminKey)
                #expect(refused.status == 400, "\(body): \(refused.text)")
                #expect(refused.errorCode == code, "\(body): \(refused.text)")
            }
            // The gateway's key has no admin scope.
            #expect(try await api.post(Self.path, json: ["name": "x"]).status == 403)
            #expect(try await api.send(.get, Self.path).status == 403)
        }
    }

    @Test("an app that accepts no debug tokens refuses them everywhere; monitor mode passes a refused one, marked")
    func acceptance() async throws {
        try await TokenRouteTests.run(.sqlite) { api in
            let made = try await api.post(Self.path, json: ["name": "x"], apiKey: ServerHarness.adminKey)
            #expect(made.status == 404)
            #expect(made.errorCode == "debug_tokens_not_enabled")
            // Named where the request is refused anyway (require and token routes); ignored where it is not.
            let secret = "agdt_" + String(repeating: "A", count: 43)
            for ask in [Self.claim(secret), TokenRouteTests.feed(token: secret)] {
                let refused = try await api.forwardAuth(ask)
                #expect(refused.status == 401)
                #expect(refused.errorCode == "debug_tokens_not_enabled", "\(ask.target): \(refused.text)")
            }
            var account = GatewayAsk(method: "GET", target: "/api/account", body: Data())
            account.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, secret)]
            let scored = try await api.forwardAuth(account)
            #expect(scored.status == 200, "\(scored.text)")
            #expect(scored.header("X-AttestGuard-Binding") == "none")
        }
        let monitoring = Self.accepting.merging(["ATTESTGUARD_APPS_MAIN_MODE": "monitor"]) { _, new in new }
        try await TokenRouteTests.run(.sqlite, environment: monitoring) { api in
            let (secret, id) = try await Self.create(api)
            #expect(try await api.post("\(Self.path)/\(id)/revoke", json: [:], apiKey: ServerHarness.adminKey).status == 200)
            let passed = try await api.forwardAuth(TokenRouteTests.feed(token: secret))
            #expect(passed.status == 200, "\(passed.text)")
            #expect(passed.header("X-AttestGuard-Monitor") == "debug_token_revoked")
            #expect(passed.header("X-AttestGuard-Binding") == "none")
        }
    }

    @Test("an app that accepts production keys takes debug tokens only with allowInProduction")
    func productionGuard() async throws {
        await #expect {
            try await TokenRouteTests.run(.sqlite, environment: ["ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED": "true"]) { _ in }
        } throws: { error in
            (error as? ConfigurationError)?.key == "apps.main.debugTokens.allowInProduction"
        }
        let allowed = ["ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED": "true", "ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ALLOW_IN_PRODUCTION": "true"]
        try await TokenRouteTests.run(.sqlite, environment: allowed) { api in
            let policy = try #require(api.engine?.apps.policy(for: ServerHarness.appId).debugTokens)
            #expect(policy.acceptedInProduction)
            let (secret, _) = try await Self.create(api)
            #expect(try await api.forwardAuth(Self.claim(secret)).status == 200)
        }
    }

    @Test("the store keeps tokens on PostgreSQL as on SQLite, and an assertion's decisions say key.kind attested")
    func postgres() async throws {
        try await TokenRouteTests.run(.postgres, environment: Self.accepting) { api in
            let (secret, id) = try await Self.create(api)
            #expect(try await api.forwardAuth(Self.claim(secret)).status == 200)
            var app = SimulatedApps.make(user: "bob", device: "bob-phone")
            #expect(try await api.attest(app).status == 201)
            let asserted = try await api.forwardAuth(try await api.signed(Self.claim(nil, user: "bob"), by: &app))
            #expect(asserted.status == 200, "\(asserted.text)")
            let engine = try #require(api.engine)
            try await engine.scorer.decisionLog.flush()
            let kinds = try await engine.store.decisions(since: .distantPast, after: nil, limit: 10).compactMap { entry in
                (try? JSONSerialization.jsonObject(with: Data(entry.signals.utf8)) as? [String: Any])?["key.kind"] as? String
            }
            #expect(kinds.contains("debug") && kinds.contains("attested"))
            #expect(try await api.post("\(Self.path)/\(id)/revoke", json: [:], apiKey: ServerHarness.adminKey).status == 200)
            #expect(try await api.forwardAuth(Self.claim(secret)).errorCode == "debug_token_revoked")
        }
    }
}
