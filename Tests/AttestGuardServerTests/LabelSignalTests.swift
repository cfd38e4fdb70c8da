import AttestGuardWire
import Foundation
@testable import AttestGuardEngine
import Testing

/// The fraud team's labels as signals: a label posted now is read by the next verdict of its key, user or device
/// (`label.*` and their ages), the latest source's word applies, and another app's labels are never read.
@Suite("HTTP: labels as signals")
struct LabelSignalTests {
    static let rules = """
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: labelled-key
            when: label.key == "fraud"
            decide: deny
          - id: labelled-user
            when: label.user == "fraud" and label.user_age < 30d
            score: +60
          - id: vouched-device
            when: label.device == "legitimate"
            decide: allow

        """

    static func run(_ backend: ServerBackend, _ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        try await ServerHarness.run(backend, extraEnvironment: LabelRouteTests.environment, rules: rules, body)
    }

    static func label(_ api: APIClient, _ subject: [String: String], _ value: String, source: String, daysAgo: Double, app: String = LabelRouteTests.app) async throws {
        var body: [String: Any] = subject.merging(["appId": app, "label": value, "source": source]) { _, new in new }
        body["labelledAt"] = RFC3339.format(api.clock.now().addingTimeInterval(-daysAgo * 86_400))
        let stored = try await LabelRouteTests.post(api, body, apiKey: ServerHarness.adminKey)
        try #require(stored.status == 200, "\(stored.text)")
    }

    /// An age in whole days (`labelledAt` travels as RFC 3339 with milliseconds).
    static func days(_ value: Any?) -> Int? {
        (value as? Double).map { Int(($0 / 86_400).rounded()) }
    }

    @Test("a label is read by the next verdict of its key, user or device; the latest source applies; other apps' labels are not", arguments: ServerBackend.available)
    func labelsScoreTheNextVerdict(backend: ServerBackend) async throws {
        try await Self.run(backend) { api in
            let (_, keyId) = try await ScoreRouteTests.attested(api, user: "mallory")
            func score(device: String = "mallory-phone") async throws -> (decision: String?, signals: [String: Any]) {
                let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": keyId, "userId": "mallory", "deviceId": device])
                #expect(reply.status == 200, "\(reply.text)")
                return (reply["decision"] as? String, reply["signals"] as? [String: Any] ?? [:])
            }
            let unlabelled = try await score()
            #expect(unlabelled.decision == "allow")
            // The signals the rules read, missing before any label.
            for name in ["label.key", "label.user", "label.user_age", "label.device"] {
                #expect(unlabelled.signals[name] is NSNull, "\(name) before any label")
            }

            // Another app's word on the same user is not this app's.
            try await Self.label(api, ["userId": "mallory"], "fraud", source: "chargebacks", daysAgo: 0, app: LabelRouteTests.otherApp)
            #expect(try await score().signals["label.user"] is NSNull)

            try await Self.label(api, ["userId": "mallory"], "fraud", source: "chargebacks", daysAgo: 10)
            let flagged = try await score()
            #expect(flagged.decision == "review")
            #expect(flagged.signals["label.user"] as? String == "fraud")
            #expect(Self.days(flagged.signals["label.user_age"]) == 10)

            // A later word from another source applies.
            try await Self.label(api, ["userId": "mallory"], "legitimate", source: "support", daysAgo: 1)
            let cleared = try await score()
            #expect(cleared.decision == "allow")
            #expect(cleared.signals["label.user"] as? String == "legitimate")
            #expect(Self.days(cleared.signals["label.user_age"]) == 1)

            try await Self.label(api, ["keyId": keyId], "fraud", source: "chargebacks", daysAgo: 0)
            let denied = try await score()
            #expect(denied.decision == "deny")
            #expect(denied.signals["label.key"] as? String == "fraud")

            try await Self.label(api, ["deviceId": "lab-phone"], "legitimate", source: "qa", daysAgo: 2)
            let vouched = try await score(device: "lab-phone")
            #expect(vouched.signals["label.device"] as? String == "legitimate")
            #expect(vouched.decision == "deny", "deny beats allow")
        }
    }
}
