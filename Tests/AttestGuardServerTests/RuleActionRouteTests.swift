import AttestGuardEngine
import AttestTestSupport
import Foundation
import Testing

/// `GET /v1/admin/rules/actions`: what the rules' actions did, newest first, for a key that may read the app (or every
/// app); an action a verdict queued runs behind it and its effect is in the next verdict.
@Suite("HTTP: rule actions")
struct RuleActionRouteTests {
    static let rules = """
        version: 1
        lists:
          blocked_ips: { managed: true, kind: cidr }
        rules:
          - id: scan
            when: request.action == "scan"
            then: 'add_to_list("blocked_ips", request.ip, 1h)'
          - id: blocked-ip
            when: request.ip in list("blocked_ips")
            decide: deny
        """

    static let shopReaderKey = "test-shop-reader-key-0123456789"

    @Test("a queued action runs, shows in the runs, and blocks the address in the next verdict", arguments: ServerBackend.available)
    func runs(backend: ServerBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("action-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        let environment = [
            "ATTESTGUARD_RULES_DIRECTORY": directory.path,
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,reader,shopreader",
            "ATTESTGUARD_API_KEYS_READER_SECRET_ENV": "TEST_READER_KEY",
            "ATTESTGUARD_API_KEYS_READER_SCOPES": "analyst",
            "TEST_READER_KEY": ManagedListRouteTests.readerKey,
            "ATTESTGUARD_API_KEYS_SHOPREADER_SECRET_ENV": "TEST_SHOP_READER_KEY",
            "ATTESTGUARD_API_KEYS_SHOPREADER_SCOPES": "analyst",
            "ATTESTGUARD_API_KEYS_SHOPREADER_APPS": ServerHarness.appId,
            "TEST_SHOP_READER_KEY": Self.shopReaderKey,
        ]
        try await ServerHarness.run(backend, extraEnvironment: environment) { api in
            let reader = ManagedListRouteTests.readerKey
            func decision(_ action: String) async throws -> String? {
                let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "mallory", "ip": "198.51.100.23", "action": action])
                #expect(reply.status == 200, "\(reply.text)")
                return reply["decision"] as? String
            }
            #expect(try await decision("scan") == "allow", "the action does not change the verdict that asked for it")
            // Run now, unless the server's write-behind service took it first: either way it ends `done`.
            _ = try await #require(api.engine).ruleActions.run()
            var runs: [[String: Any]] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let listed = try await api.send(.get, "/v1/admin/rules/actions", apiKey: reader)
                #expect(listed.status == 200, "\(listed.text)")
                runs = listed["runs"] as? [[String: Any]] ?? []
                if runs.first?["outcome"] as? String == "done" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(runs.count == 1)
            #expect(runs.first?["action"] as? String == "add_to_list" && runs.first?["ruleId"] as? String == "scan")
            #expect(runs.first?["target"] as? String == "blocked_ips:198.51.100.23" && runs.first?["outcome"] as? String == "done")
            #expect(runs.first?["description"] as? String == #"add_to_list("blocked_ips", "198.51.100.23", 1h)"#)
            #expect(try await decision("buy") == "deny", "the address is on the list in the next verdict")

            let oneApp = try await api.send(.get, "/v1/admin/rules/actions?appId=\(ServerHarness.appId)&limit=5", apiKey: Self.shopReaderKey)
            #expect(oneApp.status == 200 && (oneApp["runs"] as? [Any])?.count == 1, "\(oneApp.text)")
            let everyApp = try await api.send(.get, "/v1/admin/rules/actions", apiKey: Self.shopReaderKey)
            #expect(everyApp.status == 403 && everyApp.errorCode == "forbidden", "a key for one app reads only that app's: \(everyApp.text)")
            let otherApp = try await api.send(.get, "/v1/admin/rules/actions?appId=\(ServerHarness.productionOnlyAppId)", apiKey: Self.shopReaderKey)
            #expect(otherApp.status == 403, "\(otherApp.text)")
            let unknown = try await api.send(.get, "/v1/admin/rules/actions?appId=ZZZZZ99999.com.example.none", apiKey: reader)
            #expect(unknown.status == 404 && unknown.errorCode == "app_not_found", "\(unknown.text)")
            let malformed = try await api.send(.get, "/v1/admin/rules/actions?appId=NOPE", apiKey: reader)
            #expect(malformed.status == 400 && malformed.errorCode == "invalid_field", "\(malformed.text)")
            let badLimit = try await api.send(.get, "/v1/admin/rules/actions?limit=0", apiKey: reader)
            #expect(badLimit.status == 400 && badLimit.errorCode == "invalid_field", "\(badLimit.text)")
            let gateway = try await api.send(.get, "/v1/admin/rules/actions")
            #expect(gateway.status == 403, "the gateway's key has no analyst scope: \(gateway.text)")
        }
    }
}
