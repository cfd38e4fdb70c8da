import AttestGuardEngine
import AttestTestSupport
import AttestVocabulary
import Foundation
import Testing

/// The webhook routes: what the engine publishes is in the outbox's delivery log, a deny verdict of a chosen action
/// becomes an event and another action's does not, and every refusal is a typed 4xx.
@Suite("HTTP: webhook delivery log")
struct WebhookRouteTests {
    static let rules = """
        version: 1
        rules:
          - id: no-purchases
            when: request.action in ["purchase", "refund"]
            decide: deny
        """
    static let appAdminKey = "test-app-admin-key-0123456789"
    static let secret = "whsec_" + Data(repeating: 9, count: 32).base64EncodedString()

    @Test("events in the log, a verdict of a chosen action, redelivery and refusals", arguments: ServerBackend.available)
    func deliveryLog(backend: ServerBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webhook-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        let environment = [
            "ATTESTGUARD_RULES_DIRECTORY": directory.path,
            "ATTESTGUARD_APPS_MAIN_WEBHOOKS_VERDICT_ACTIONS": "purchase",
            // Nothing listens on the receiver's port: deliveries fail at once and the events stay pending.
            "ATTESTGUARD_WEBHOOKS_NAMES": "support",
            "ATTESTGUARD_WEBHOOKS_SUPPORT_URL": "http://127.0.0.1:\(try LoopbackPort.free())/hooks",
            "ATTESTGUARD_WEBHOOKS_SUPPORT_SECRET_ENV": "TEST_WEBHOOK_SECRET",
            "TEST_WEBHOOK_SECRET": Self.secret,
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,appadmin",
            "ATTESTGUARD_API_KEYS_APPADMIN_SECRET_ENV": "TEST_APP_ADMIN_KEY",
            "ATTESTGUARD_API_KEYS_APPADMIN_SCOPES": "admin",
            "ATTESTGUARD_API_KEYS_APPADMIN_APPS": ServerHarness.appId,
            "TEST_APP_ADMIN_KEY": Self.appAdminKey,
        ]
        try await ServerHarness.run(backend, extraEnvironment: environment) { api in
            let engine = try #require(api.engine)
            let admin = ServerHarness.adminKey
            for action in ["purchase", "refund"] {
                let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "mallory", "action": action])
                #expect(reply.status == 200 && reply["decision"] as? String == "deny", "\(reply.text)")
            }
            try await engine.webhooks.publisher.flush()
            let created = try await api.post("/v1/lists", json: ["name": "vip_users"], apiKey: admin)
            #expect(created.status == 201, "\(created.text)")

            let listed = try await api.send(.get, "/v1/webhooks/events", apiKey: admin)
            #expect(listed.status == 200, "\(listed.text)")
            let events = try #require(listed["events"] as? [[String: Any]])
            #expect(events.map { $0["type"] as? String } == ["list.changed", "verdict.deny"], "the refund's deny is not a chosen action's")
            let verdict = try #require(events.last)
            #expect(verdict["status"] as? String == "pending" && verdict["webhook"] as? String == "support" && verdict["appId"] as? String == ServerHarness.appId)
            let sent = try #require((verdict["event"] as? [String: Any])?["verdict"] as? [String: Any])
            #expect(sent["decision"] as? String == "deny" && sent["action"] as? String == "purchase" && sent["reasons"] as? [String] == ["no-purchases"])
            #expect(sent["enforced"] as? Bool == true && sent["userHash"] is String && sent["keyId"] == nil)
            #expect(((verdict["event"] as? [String: Any])?["subject"] as? String)?.hasPrefix("user:") == true)

            let id = try #require(verdict["id"] as? String)
            let one = try await api.send(.get, "/v1/webhooks/events/\(id)", apiKey: admin)
            #expect(one.status == 200 && one["eventId"] as? String == verdict["eventId"] as? String, "\(one.text)")
            #expect(one["log"] is [Any], "\(one.text)")
            let again = try await api.post("/v1/webhooks/events/\(id)/redeliver", json: [:], apiKey: admin)
            #expect(again.status == 200 && again["status"] as? String == "pending", "a pending event is left as it is: \(again.text)")

            // The key for one app reads its app's events, not every app's nor a list's.
            let narrow = try await api.send(.get, "/v1/webhooks/events", apiKey: Self.appAdminKey)
            #expect(narrow.status == 403 && narrow.errorCode == "forbidden", "\(narrow.text)")
            let ownApp = try await api.send(.get, "/v1/webhooks/events?appId=\(ServerHarness.appId)", apiKey: Self.appAdminKey)
            #expect((ownApp["events"] as? [[String: Any]])?.count == 1, "\(ownApp.text)")
            let listEvent = try #require(events.first?["id"] as? String)
            #expect(try await api.send(.get, "/v1/webhooks/events/\(listEvent)", apiKey: Self.appAdminKey).status == 403)

            for (path, code) in [
                ("/v1/webhooks/events/999999", "webhook_event_not_found"), ("/v1/webhooks/events/-1", "invalid_field"),
                ("/v1/webhooks/events/12345678901234567890", "invalid_field"), ("/v1/webhooks/events?status=lost", "invalid_field"),
                ("/v1/webhooks/events?webhook=nobody", "invalid_field"), ("/v1/webhooks/events?limit=0", "invalid_field"),
                ("/v1/webhooks/events?cursor=%2B5", "invalid_field"), ("/v1/webhooks/events?appId=%00", "invalid_field"),
                ("/v1/webhooks/events?appId=ABCDE12345.com.example.unknown", "app_not_found"),
            ] {
                let reply = try await api.send(.get, path, apiKey: admin)
                #expect(reply.errorCode == code && (400..<500).contains(reply.status), "\(path): \(reply.text)")
            }
            #expect(try await api.send(.get, "/v1/webhooks/events", apiKey: ServerHarness.apiKey).status == 403, "the gateway key is not admin")
        }
    }
}
