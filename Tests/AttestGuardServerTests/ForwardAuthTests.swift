import AttestCore
import AttestGuardStore
import AttestTestSupport
import Crypto
import DeviceSimulator
import Foundation
import Testing

/// Forward-auth as a gateway calls it: the route policy decides what a request must show, an assertion is verified
/// and committed as `POST /v1/assertions` does, and the answer is 200, 401 or 403 with the precise outcome in
/// `X-AttestGuard-Status`.
@Suite("HTTP: forward-auth")
struct ForwardAuthTests {
    @Test("an honest request passes with the verdict headers; its replay is 401 with the precise 409", arguments: ServerBackend.available)
    func honestAndReplayed(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend, requiredPercent: 100) { api, _ in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let ask = try await api.signed(GatewayAsk(), by: &app)
            let passed = try await api.forwardAuth(ask)
            #expect(passed.status == 200, "\(passed.text)")
            #expect(passed.header("X-AttestGuard-Status") == "200")
            #expect(passed.header("X-AttestGuard-Decision") == "allow")
            #expect(passed.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
            #expect(passed.header("X-AttestGuard-Binding") == "v1")
            #expect(passed.header("X-AttestGuard-Protection") == "require-for-rollout")
            #expect(passed.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: ask.body)))
            #expect(passed.header("X-AttestGuard-Rule-Set")?.hasPrefix("sha256:") == true)

            let replayed = try await api.forwardAuth(ask)
            #expect(replayed.status == 401)
            #expect(replayed.header("X-AttestGuard-Status") == "409")
            #expect(replayed.header("WWW-Authenticate") == #"AppAttest error="assertion_already_accepted""#)
            #expect(replayed.errorCode == "assertion_already_accepted")
        }
    }

    @Test("the body and path are bound: a changed body, another path spelling, no body hash", arguments: ServerBackend.available)
    func binding(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend) { api, _ in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)

            var tampered = try await api.signed(GatewayAsk(target: "/api/promos/claim"), by: &app)
            tampered.body = Data(#"{"item":"sku-1","quantity":100}"#.utf8)
            let changed = try await api.forwardAuth(tampered)
            #expect(changed.status == 401)
            #expect(changed.header("X-AttestGuard-Status") == "422")
            #expect(changed.errorCode == "request_binding_mismatch")

            // Signed for one spelling, sent with another: the policy still requires it, and the binding refuses it.
            var respelled = try await api.signed(GatewayAsk(target: "/api/promos/claim"), by: &app)
            respelled.target = "/api//promos/claim/"
            #expect(try await api.forwardAuth(respelled).errorCode == "request_binding_mismatch")
            for bypass in ["/api//promos/claim", "/api/promos/claim/", "/api/pr%6Fmos/claim", "/API/Promos/Claim"] {
                let unsigned = try await api.forwardAuth(GatewayAsk(target: bypass))
                #expect(unsigned.status == 401, "\(bypass)")
                #expect(unsigned.errorCode == "assertion_missing", "\(bypass)")
            }
            // A dot segment is refused before any route: the upstream gets the target as sent.
            #expect(try await api.forwardAuth(GatewayAsk(target: "/api/./promos/claim")).errorCode == "request_target_refused")

            // A gateway that cannot hash the body: method and path bound, the signed hash handed to the upstream.
            var unhashed = try await api.signed(GatewayAsk(target: "/api/promos/claim?ref=mail"), by: &app)
            unhashed.hashesBody = false
            let passed = try await api.forwardAuth(unhashed)
            #expect(passed.status == 200, "\(passed.text)")
            #expect(passed.header("X-AttestGuard-Binding") == "v1_without_body")
            #expect(passed.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: unhashed.body)))
        }
    }

    @Test("what each protection asks: require, require-for-rollout, score, open", arguments: ServerBackend.available)
    func protections(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend) { api, _ in
            let required = try await api.forwardAuth(GatewayAsk(target: "/api/promos/claim", extraHeaders: [("X-AppAttest-Status", "unsupported")]))
            #expect(required.status == 401)
            #expect(required.header("X-AttestGuard-Status") == "401")
            #expect(required.header("WWW-Authenticate") == #"AppAttest error="assertion_missing""#)

            // 0 % of users must attest: the order is scored without an assertion.
            let outsideRollout = try await api.forwardAuth(GatewayAsk(target: "/api/orders"))
            #expect(outsideRollout.status == 200, "\(outsideRollout.text)")
            #expect(outsideRollout.header("X-AttestGuard-Binding") == "none")
            #expect(outsideRollout.header("X-AttestGuard-Key-Id") == nil)

            let scored = try await api.forwardAuth(GatewayAsk(method: "GET", target: "/api/account", body: Data(), user: nil))
            #expect(scored.status == 200, "\(scored.text)")
            #expect(scored.header("X-AttestGuard-Decision") != nil)

            let open = try await api.forwardAuth(GatewayAsk(method: "GET", target: "/api/catalog/shoes/42", body: Data(), user: nil))
            #expect(open.status == 200)
            #expect(open.header("X-AttestGuard-Decision") == nil)

            let userless = try await api.forwardAuth(GatewayAsk(target: "/api/promos/claim", user: nil))
            #expect(userless.status == 403)
            #expect(userless.errorCode == "user_missing")
        }
        try await ForwardAuthHarness.run(backend, requiredPercent: 100) { api, _ in
            let insideRollout = try await api.forwardAuth(GatewayAsk(target: "/api/orders"))
            #expect(insideRollout.status == 401)
            #expect(insideRollout.errorCode == "assertion_missing")
        }
    }

    @Test("deny is 403 with the verdict; review passes or is refused as the route says", arguments: ServerBackend.available)
    func verdicts(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend) { api, _ in
            var mallory = SimulatedApps.make(user: "mallory", device: "mallory-phone")
            #expect(try await api.attest(mallory).status == 201)
            let denied = try await api.forwardAuth(try await api.signed(GatewayAsk(target: "/api/promos/claim", user: "mallory"), by: &mallory))
            #expect(denied.status == 403)
            #expect(denied.header("X-AttestGuard-Status") == "403")
            #expect(denied.errorCode == "request_denied")
            #expect(denied.header("X-AttestGuard-Decision") == "deny")
            #expect(denied.header("X-AttestGuard-Reasons") == "claims-by-mallory")

            let reviewRefused = try await api.forwardAuth(GatewayAsk(method: "GET", target: "/api/profile", body: Data()))
            #expect(reviewRefused.status == 403)
            #expect(reviewRefused.header("X-AttestGuard-Decision") == "review")
            #expect(reviewRefused.header("X-AttestGuard-Reasons")?.split(separator: ",").contains("profile-views-reviewed") == true)
        }
    }

    @Test("expired challenge, unknown key, revoked key: 401 with their precise codes", arguments: ServerBackend.available)
    func credentialFailures(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend, requiredPercent: 100) { api, _ in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let late = try await api.signed(GatewayAsk(), by: &app)
            api.clock.advance(by: 300 + 121)
            let expired = try await api.forwardAuth(late)
            #expect(expired.status == 401)
            #expect(expired.header("X-AttestGuard-Status") == "422")
            #expect(expired.errorCode == "challenge_expired")

            var stranger = SimulatedApps.make(user: "alice", device: "alice-tablet")
            let unknown = try await api.forwardAuth(try await api.signed(GatewayAsk(), by: &stranger))
            #expect(unknown.status == 401)
            #expect(unknown.header("X-AttestGuard-Status") == "404")
            #expect(unknown.header("WWW-Authenticate") == #"AppAttest error="key_not_found""#)

            let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)/revoke"
            #expect(try await api.send(.post, keyPath, apiKey: ServerHarness.adminKey).status == 200)
            let revoked = try await api.forwardAuth(try await api.signed(GatewayAsk(), by: &app))
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "key_revoked")
        }
    }

    @Test("the store down is 403 with the precise 503 and Retry-After, never a pass", arguments: ServerBackend.available)
    func storeDown(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend, requiredPercent: 100, wrapStore: { FaultyScoringStore($0) }) { api, _ in
            let store = try #require(api.engine?.store as? FaultyScoringStore)
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let ask = try await api.signed(GatewayAsk(), by: &app)
            store.failKeyLookups(with: StoreError(.unavailable, "injected: the database stopped answering"))
            let down = try await api.forwardAuth(ask)
            store.failKeyLookups(with: nil)
            #expect(down.status == 403)
            #expect(down.header("X-AttestGuard-Status") == "503")
            #expect(down.header("Retry-After") != nil)
            #expect(down.errorCode == "store_unavailable")
            #expect(try await api.forwardAuth(ask).status == 200, "the challenge was not spent")
        }
    }

    @Test("the gateway's own faults: its key (500), its headers (403), a request no policy owns (403, 404), a refused target (403, 400)")
    func gatewayFaults() async throws {
        try await ForwardAuthHarness.run(.sqlite) { api, _ in
            for key in [nil, "not-a-key", ServerHarness.apiKey] as [String?] {
                let reply = try await api.forwardAuth(GatewayAsk(target: "/api/promos/claim", apiKey: key))
                #expect(reply.status == 500, "\(key ?? "no key")")
                #expect(reply.errorCode == "gateway_unauthorized")
            }
            let conflicting = try await api.forwardAuth(GatewayAsk(target: "/api/catalog/x", extraHeaders: [("X-Forwarded-Uri", "/api/promos/claim")]))
            #expect(conflicting.status == 403)
            #expect(conflicting.header("X-AttestGuard-Status") == "400")
            let forgedUser = try await api.forwardAuth(GatewayAsk(target: "/api/promos/claim", extraHeaders: [("X-AttestGuard-User", "mallory")]))
            #expect(forgedUser.status == 403)
            #expect(forgedUser.errorCode == "invalid_field")
            let badIP = try await api.forwardAuth(GatewayAsk(ip: "10.0.0.1, 10.0.0.2"))
            #expect(badIP.status == 403 && badIP.errorCode == "invalid_field")
            let notOwned = try await api.forwardAuth(GatewayAsk(target: "relative"))
            #expect(notOwned.status == 403)
            // A path of an app the gateway's key may not use is the client's choice: 404, never a 5xx.
            let otherApp = try await api.forwardAuth(GatewayAsk(target: "/api/catalog/x", apiKey: ForwardAuthHarness.otherAppGatewayKey))
            #expect(otherApp.status == 403 && otherApp.header("X-AttestGuard-Status") == "404" && otherApp.errorCode == "route_not_covered", "\(otherApp.text)")
            // Targets whose normalised path an upstream may not serve are refused before any route is chosen.
            for target in ["/admin/x://h/api/catalog/z", "/admin/../api/catalog/z", "/api/promos/claim/%2e%2e/%2e%2e/%2e%2e/api/catalog/x", "//h/api/catalog/x"] {
                let refused = try await api.forwardAuth(GatewayAsk(method: "GET", target: target, body: Data()))
                #expect(refused.status == 403 && refused.header("X-AttestGuard-Status") == "400", "\(target): \(refused.text)")
                #expect(refused.errorCode == "request_target_refused", "\(target)")
            }
            var partial = GatewayAsk(target: "/api/promos/claim")
            partial.extraHeaders = [("X-AppAttest-KeyId", "AAAA")]
            let incomplete = try await api.forwardAuth(partial)
            #expect(incomplete.status == 401 && incomplete.errorCode == "missing_field")
        }
    }

    @Test("monitor mode: score and rollout routes pass what enforcement would refuse, marked; require routes enforce; counted per route")
    func monitorMode() async throws {
        try await ForwardAuthHarness.run(.sqlite, requiredPercent: 100) { api, _ in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            // Signed for one request, sent as another: enforcement refuses it on a score route.
            let mismatched = { (app: inout SimulatedAppClient) async throws -> GatewayAsk in
                var ask = try await api.signed(GatewayAsk(method: "GET", target: "/api/account", body: Data()), by: &app)
                ask.target = "/api/account?tampered=1"
                return ask
            }
            let enforced = try await api.forwardAuth(try await mismatched(&app))
            #expect(enforced.status == 401 && enforced.errorCode == "request_binding_mismatch", "\(enforced.text)")

            let monitor = try await api.send(.put, AppPolicyRouteTests.path, body: Data(#"{"mode":"monitor"}"#.utf8), apiKey: ServerHarness.adminKey)
            #expect(monitor.status == 200, "\(monitor.text)")
            let watched = try await api.forwardAuth(try await mismatched(&app))
            #expect(watched.status == 200, "\(watched.text)")
            #expect(watched.header("X-AttestGuard-Monitor") == "request_binding_mismatch")
            #expect(watched.header("X-AttestGuard-Decision") == "allow" && watched.header("X-AttestGuard-Key-Id") == nil)
            // A rollout route the user must assert on, without an assertion: passed, marked.
            let rollout = try await api.forwardAuth(GatewayAsk(target: "/api/orders"))
            #expect(rollout.status == 200 && rollout.header("X-AttestGuard-Monitor") == "assertion_missing", "\(rollout.text)")
            // A verdict the route refuses: passed, marked.
            let reviewed = try await api.forwardAuth(GatewayAsk(method: "GET", target: "/api/profile", body: Data()))
            #expect(reviewed.status == 200 && reviewed.header("X-AttestGuard-Monitor") == "request_denied", "\(reviewed.text)")
            // `require` enforces in every mode.
            let required = try await api.forwardAuth(GatewayAsk(target: "/api/promos/claim"))
            #expect(required.status == 401 && required.errorCode == "assertion_missing")
            // An honest assertion passes unmarked.
            let honest = try await api.forwardAuth(try await api.signed(GatewayAsk(method: "GET", target: "/api/account", body: Data()), by: &app))
            #expect(honest.status == 200 && honest.header("X-AttestGuard-Monitor") == nil, "\(honest.text)")

            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            func counted(_ route: String, _ outcome: String, _ result: String) -> Bool {
                metrics.split(separator: "\n").contains { line in
                    line.hasPrefix("attestguard_gateway_checks_total{") && line.contains(#"app="\#(ServerHarness.appId)""#)
                        && line.contains(#"route="\#(route)""#) && line.contains(#"outcome="\#(outcome)""#) && line.contains(#"result="\#(result)""#)
                }
            }
            #expect(counted("/api/account", "invalid", "refused") && counted("/api/account", "invalid", "passed"), "\(metrics)")
            #expect(counted("/api/orders", "missing", "passed") && counted("/api/promos/claim", "missing", "refused"))
            #expect(counted("/api/profile", "denied", "passed") && counted("/api/account", "verified", "passed"))

            // The console's rollout page shows the same per route, from the store (every process's counts).
            try await #require(api.engine).gatewayChecks.flush()
            let session = try await ConsoleRouteTests.session(api, key: ServerHarness.adminKey)
            let page = try await ConsoleRouteTests.get(api, "/console/rollout?range=1h", cookie: session).text
            func cell(_ route: String, _ outcome: String) -> Int? {
                guard let row = page.range(of: #"<tr data-route="\#(route)">"#) else { return nil }
                let rest = page[row.upperBound...].prefix { $0 != "\n" }
                guard let cell = rest.range(of: #"data-outcome="\#(outcome)">"#) else { return nil }
                return Int(rest[cell.upperBound...].prefix { $0.isNumber })
            }
            #expect(cell("/api/account", "invalid") == 2 && cell("/api/account", "verified") == 1, "\(page)")
            #expect(cell("/api/account", "refused") == 1 && cell("/api/account", "under-require") == 2)
            #expect(cell("/api/orders", "missing") == 1 && cell("/api/promos/claim", "missing") == 1)
            #expect(cell("/api/profile", "denied") == 1 && cell("/api/profile", "under-require") == 1)
        }
    }

    @Test("without a policy directory every request is refused as route_not_covered")
    func noPolicies() async throws {
        let rules = try ForwardAuthHarness.directory(["rules.yaml": ForwardAuthHarness.rules])
        defer { try? FileManager.default.removeItem(at: rules) }
        var environment = ForwardAuthHarness.environment(policies: rules, rules: rules)
        environment["ATTESTGUARD_GATEWAY_POLICY_DIRECTORY"] = nil
        try await ServerHarness.run(.sqlite, extraEnvironment: environment) { api in
            for target in ["/api/catalog/a", "/api/promos/claim"] {
                let reply = try await api.forwardAuth(GatewayAsk(method: "GET", target: target, body: Data()))
                #expect(reply.status == 403)
                #expect(reply.header("X-AttestGuard-Status") == "404")
                #expect(reply.errorCode == "route_not_covered")
            }
        }
    }

    @Test("policies reload: a broken set is reported and the set in force stays; a good one replaces it")
    func policyReload() async throws {
        try await ForwardAuthHarness.run(.sqlite) { api, policies in
            let before = try await api.send(.get, "/v1/admin/gateway", apiKey: ServerHarness.adminKey)
            #expect(before.status == 200)
            let version = try #require(before["version"] as? String)
            #expect(before["apps"] as? [String] == [ServerHarness.appId])

            try "version: 1\napp: ABCDE12345.com.example.unconfigured\n".write(to: policies.appendingPathComponent("other.yaml"), atomically: true, encoding: .utf8)
            let rejected = try await api.post("/v1/admin/gateway/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(rejected["reloaded"] as? Bool == false)
            #expect(rejected["version"] as? String == version)
            let problems = try #require(rejected["rejected"] as? [[String: Any]])
            #expect(!problems.isEmpty)
            // An admin of another app sees neither this app nor the problems of a file that is not its app's.
            let narrow = try await api.send(.get, "/v1/admin/gateway", apiKey: ForwardAuthHarness.narrowAdminKey)
            #expect(narrow.status == 200 && (narrow["apps"] as? [String])?.isEmpty == true && (narrow["rejected"] as? [Any])?.isEmpty == true, "\(narrow.text)")
            #expect(try await api.forwardAuth(GatewayAsk(method: "GET", target: "/api/catalog/a", body: Data())).status == 200, "the set in force stays")

            try FileManager.default.removeItem(at: policies.appendingPathComponent("other.yaml"))
            let opened = ForwardAuthHarness.policy.replacingOccurrences(of: "default: require", with: "default: open")
            try opened.write(to: policies.appendingPathComponent("shop.yaml"), atomically: true, encoding: .utf8)
            let reloaded = try await api.post("/v1/admin/gateway/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(reloaded["reloaded"] as? Bool == true)
            #expect(reloaded["version"] as? String != version)
            #expect(try await api.forwardAuth(GatewayAsk(method: "GET", target: "/elsewhere", body: Data())).status == 200)
        }
    }
}
