import AppleReceipts
import AttestGuardStore
import Foundation
import HTTPTypes
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing
import AttestGuardWire

/// `GET /v1/apps/{appId}/keys/{keyId}/history` and `GET /v1/apps/{appId}/decisions`: scopes, app isolation, every
/// refusal, paging, and the device hash the hot path writes.
@Suite("HTTP: key history and the decision search")
struct HistoryRouteTests {
    static let analyst = AnalystScopeTests.analystKey
    static let app = ServerHarness.appId

    /// The query value percent-encoded (everything but letters and digits).
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    static func decisions(_ api: APIClient, _ query: String, app: String = app, apiKey: String? = analyst) async throws -> APIClient.Reply {
        try await api.send(.get, "/v1/apps/\(app)/decisions?\(query)", apiKey: apiKey)
    }

    /// Writes the queued decisions and moves the clock on, so that a range ending now holds them.
    static func flush(_ api: APIClient) async throws {
        try await #require(api.engine).scorer.decisionLog.flush()
        api.clock.advance(by: 1)
    }

    @Test("an assertion's decision is found by its device, user and key, with reasons and signals and no raw id", arguments: ServerBackend.available)
    func hotPathFillsDeviceHash(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: AnalystScopeTests.environment) { api in
            var app = SimulatedApps.make(user: "ana-user", device: "ana-device-1")
            #expect(try await api.attest(app).status == 201)
            #expect(try await api.assert(&app).status == 200)
            try await Self.flush(api)

            let byDevice = try await Self.decisions(api, "deviceId=\(Self.encoded("ana-device-1"))")
            #expect(byDevice.status == 200, "\(byDevice.text)")
            let found = try #require(byDevice["decisions"] as? [[String: Any]])
            #expect(found.compactMap { $0["endpoint"] as? String } == ["assertion", "attestation"], "newest first")
            #expect(found.allSatisfy { $0["keyId"] as? String == app.key.keyIdBase64 })
            #expect(found.allSatisfy { ($0["signals"] as? [String: Any])?["key.status"] != nil })
            #expect(found.allSatisfy { $0["reasons"] is [[String: Any]] && $0["ruleSetVersion"] is String && $0["decidedAt"] is String })
            #expect(byDevice["next"] == nil)
            #expect(!byDevice.text.contains("ana-"), "neither the user id nor the device id is echoed")

            let byUser = try await Self.decisions(api, "userId=ana-user")
            #expect((byUser["decisions"] as? [Any])?.count == 2)
            let byKey = try await Self.decisions(api, "keyId=\(app.key.keyIdBase64URL)")
            #expect((byKey["decisions"] as? [Any])?.count == 2)
            let byStandardKey = try await Self.decisions(api, "keyId=\(Self.encoded(app.key.keyIdBase64))", apiKey: ServerHarness.adminKey)
            #expect((byStandardKey["decisions"] as? [Any])?.count == 2, "an admin key reads them too")
            #expect((try await Self.decisions(api, "deviceId=ana-device-2")["decisions"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("a fired rule comes with its score and reason, rendered again from the logged signals")
    func reasonsOfFiredRules() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: AnalystScopeTests.environment) { api in
            // A key id nobody registered fires the shipped rules' unknown-key rule.
            let unknownKey = Data(repeating: 7, count: 32).base64EncodedString()
            let scored = try await api.post("/v1/score", json: ["appId": Self.app, "keyId": unknownKey, "userId": "rene"])
            #expect(scored.status == 200)
            let verdictReasons = try #require(scored["reasons"] as? [[String: Any]])
            try #require(!verdictReasons.isEmpty, "the shipped rules fire on an unknown key")
            try await Self.flush(api)
            let logged = try await Self.decisions(api, "userId=rene")
            let decision = try #require((logged["decisions"] as? [[String: Any]])?.first)
            let reasons = try #require(decision["reasons"] as? [[String: Any]])
            #expect(reasons.compactMap { $0["ruleId"] as? String } == verdictReasons.compactMap { $0["ruleId"] as? String })
            #expect(reasons.compactMap { $0["message"] as? String } == verdictReasons.compactMap { $0["message"] as? String })
            #expect(reasons.compactMap { $0["score"] as? Double } == verdictReasons.compactMap { $0["score"] as? Double })
        }
    }

    @Test("pages follow `next` without gaps or repeats through decisions made at one instant", arguments: ServerBackend.available)
    func paging(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: AnalystScopeTests.environment) { api in
            for index in 0..<7 {
                #expect(try await api.post("/v1/score", json: ["appId": Self.app, "userId": "pager", "action": "a\(index)"]).status == 200)
                if index % 3 == 2 { api.clock.advance(by: 0.25) }
            }
            try await Self.flush(api)
            var actions: [String] = []
            var sizes: [Int] = []
            var cursor: String?
            repeat {
                let reply = try await Self.decisions(api, "userId=pager&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(reply.status == 200, "\(reply.text)")
                let page = try #require(reply["decisions"] as? [[String: Any]])
                sizes.append(page.count)
                actions += page.compactMap { ($0["signals"] as? [String: Any])?["request.action"] as? String }
                cursor = reply["next"] as? String
            } while cursor != nil && sizes.count < 10
            #expect(sizes == [3, 3, 1])
            #expect(Set(actions).count == 7 && actions.count == 7, "\(actions)")
            #expect(actions.first == "a6" && actions.last == "a0", "newest first")
        }
    }

    @Test("a key of app A reads nothing of app B, and only analyst and admin keys read at all")
    func scopesAndApps() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: AnalystScopeTests.environment) { api in
            let app = SimulatedApps.make(user: "iso", device: "iso-1")
            #expect(try await api.attest(app).status == 201)
            try await Self.flush(api)
            let history = "/v1/apps/\(Self.app)/keys/\(app.key.keyIdBase64URL)/history"
            let otherApp = ServerHarness.productionOnlyAppId
            for (path, key) in [
                ("/v1/apps/\(otherApp)/decisions?userId=iso", Self.analyst),
                ("/v1/apps/\(otherApp)/keys/\(app.key.keyIdBase64URL)/history", Self.analyst),
                ("/v1/apps/\(Self.app)/decisions?userId=iso", AnalystScopeTests.narrowAdminKey),
                (history, AnalystScopeTests.narrowAdminKey),
                (history, ServerHarness.apiKey),
                ("/v1/apps/\(Self.app)/decisions?userId=iso", ServerHarness.narrowKey),
            ] {
                let refused = try await api.send(.get, path, apiKey: key)
                #expect(refused.status == 403 && refused.errorCode == "forbidden", "\(path): \(refused.status) \(refused.text)")
            }
            #expect(try await api.send(.get, history, apiKey: nil).status == 401)
            // The same user in another app: nothing there.
            let elsewhere = try await Self.decisions(api, "userId=iso", app: otherApp, apiKey: ServerHarness.adminKey)
            #expect(elsewhere.status == 200)
            #expect((elsewhere["decisions"] as? [Any])?.isEmpty == true)
            #expect((try await Self.decisions(api, "userId=iso")["decisions"] as? [Any])?.count == 1)
        }
    }

    @Test("every malformed search is a typed 400; an unknown app 404")
    func refusals() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: AnalystScopeTests.environment) { api in
            let now = api.clock.now()
            let later = RFC3339.format(now.addingTimeInterval(60))
            let cases: [(String, String)] = [
                ("", "missing_field"),
                ("limit=5", "missing_field"),
                ("userId=a&deviceId=b", "invalid_field"),
                ("userId=a&userId=b", "invalid_field"),
                ("userId=", "missing_field"),
                ("userId=%01", "invalid_field"),
                ("userId=%zz", "invalid_field"),
                ("userId=%FF", "invalid_field"),
                ("userId=\(String(repeating: "u", count: 257))", "invalid_field"),
                ("keyId=short", "invalid_field"),
                ("keyId=\(String(repeating: "!", count: 43))", "invalid_field"),
                ("keyId=\(String(repeating: "A", count: 42))-%3D", "invalid_field"),
                ("userId=a&from=yesterday", "invalid_field"),
                ("userId=a&to=2026-13-01T00:00:00Z", "invalid_field"),
                ("userId=a&from=\(later)&to=\(later)", "invalid_field"),
                ("userId=a&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z", "invalid_field"),
                ("userId=a&limit=0", "invalid_field"),
                ("userId=a&limit=501", "invalid_field"),
                ("userId=a&limit=-1", "invalid_field"),
                ("userId=a&limit=9999999999", "invalid_field"),
                ("userId=a&cursor=abc", "invalid_field"),
                ("userId=a&cursor=AAAAAAAAAAAAAAAAAAAAAA", "invalid_field"),
            ]
            for (query, code) in cases {
                let reply = try await Self.decisions(api, query)
                #expect(reply.status == 400 && reply.errorCode == code, "\(query): \(reply.status) \(reply.text)")
            }
            // A range of 31 days is allowed, with an offset time too.
            let month = try await Self.decisions(api, "userId=a&from=2026-10-22T14:00:00%2B02:00&to=2026-11-22T12:00:00Z")
            #expect(month.status == 200, "\(month.text)")
            #expect(month["from"] as? String == "2026-10-22T12:00:00.000Z")

            let unknownApp = try await Self.decisions(api, "userId=a", app: "ABCDE12345.com.example.unknown", apiKey: ServerHarness.adminKey)
            #expect(unknownApp.status == 404 && unknownApp.errorCode == "app_not_found")
            let missingKey = try await api.send(.get, "/v1/apps/\(Self.app)/keys/\(String(repeating: "A", count: 43))/history", apiKey: Self.analyst)
            #expect(missingKey.status == 404 && missingKey.errorCode == "key_not_found")
            let badKey = try await api.send(.get, "/v1/apps/\(Self.app)/keys/not-a-key/history", apiKey: Self.analyst)
            #expect(badKey.status == 400)
            let badLimit = try await api.send(.get, "/v1/apps/\(Self.app)/keys/\(String(repeating: "A", count: 43))/history?limit=0", apiKey: Self.analyst)
            #expect(badLimit.status == 400 && badLimit.errorCode == "invalid_field")
            let post = try await api.send(.post, "/v1/apps/\(Self.app)/decisions?userId=a", body: Data("{}".utf8), apiKey: Self.analyst)
            #expect(post.status == 405)
        }
    }

    @Test("a key's history: its receipt with the last attempt, and its risk metrics newest first, bounded", arguments: ServerBackend.available)
    func keyHistory(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: AnalystScopeTests.environment) { api in
            let app = SimulatedApps.make(user: "hist", device: "hist-1")
            #expect(try await api.attest(app).status == 201)
            let path = "/v1/apps/\(Self.app)/keys/\(app.key.keyIdBase64URL)/history"
            let fresh = try await api.send(.get, path, apiKey: Self.analyst)
            #expect(fresh.status == 200, "\(fresh.text)")
            #expect(fresh["keyId"] as? String == app.key.keyIdBase64 && fresh["status"] as? String == "active")
            #expect((fresh["receipt"] as? [String: Any])?["type"] as? String == "ATTEST")
            #expect((fresh["receipt"] as? [String: Any])?["failedAttempts"] as? Int == 0)
            #expect((fresh["riskMetrics"] as? [Any])?.isEmpty == true)

            // Three refreshes, as the scheduler stores them.
            let store = try #require(api.engine).store
            let keyId = Data(app.key.keyId)
            for (offset, metric) in [(3_600.0, 1), (7_200, 4), (10_800, 2)] {
                let created = api.clock.now().addingTimeInterval(offset)
                let receipt = ReceiptRecord(
                    appId: Self.app, keyId: keyId, receiptType: .receipt, receipt: Data("r\(offset)".utf8), createdAt: created,
                    notBefore: nil, expiresAt: nil, riskMetric: metric, storedAt: created, nextRefreshAt: created.addingTimeInterval(86_400)
                )
                _ = try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "test", observedAt: created.addingTimeInterval(5)))
            }
            let refreshed = try await api.send(.get, path + "?limit=2", apiKey: ServerHarness.adminKey)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let metrics = try #require(refreshed["riskMetrics"] as? [[String: Any]])
            #expect(metrics.compactMap { $0["riskMetric"] as? Int } == [2, 4])
            let receipt = try #require(refreshed["receipt"] as? [String: Any])
            #expect(receipt["type"] as? String == "RECEIPT" && receipt["riskMetric"] as? Int == 2 && receipt["lastOutcome"] as? String == "redeemed")
            #expect(receipt["lastAttemptAt"] is String)
        }
    }
}
