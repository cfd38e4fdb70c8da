import AttestGuardEngine
import AttestTestSupport
import AttestVocabulary
import Foundation
import Testing

/// The review queue's routes: review verdicts of the chosen action open an item, analysts list, claim and decide
/// it, a decision labels the subject; every refusal is a typed 4xx.
@Suite("HTTP: review queue")
struct ReviewRouteTests {
    static let rules = """
        version: 1
        rules:
          - id: large-purchase
            when: request.action == "purchase"
            decide: review
        """
    static let writerKey = "test-review-writer-key-0123456789"

    @Test("list, claim, decide; a claim keeps others off; a decision labels the subject", arguments: ServerBackend.available)
    func lifecycle(backend: ServerBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("review-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.rules.write(to: directory.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        let environment = [
            "ATTESTGUARD_RULES_DIRECTORY": directory.path,
            "ATTESTGUARD_APPS_MAIN_REVIEW_QUEUE_ACTIONS": "purchase",
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,reader,ana",
            "ATTESTGUARD_API_KEYS_READER_SECRET_ENV": "TEST_READER_KEY",
            "ATTESTGUARD_API_KEYS_READER_SCOPES": "analyst",
            "TEST_READER_KEY": ManagedListRouteTests.readerKey,
            "ATTESTGUARD_API_KEYS_ANA_SECRET_ENV": "TEST_WRITER_KEY",
            "ATTESTGUARD_API_KEYS_ANA_SCOPES": "analyst:write",
            "ATTESTGUARD_API_KEYS_ANA_APPS": ServerHarness.appId,
            "TEST_WRITER_KEY": Self.writerKey,
        ]
        try await ServerHarness.run(backend, extraEnvironment: environment) { api in
            let engine = try #require(api.engine)
            let reader = ManagedListRouteTests.readerKey
            let base = "/v1/apps/\(ServerHarness.appId)/review-items"
            for action in ["purchase", "purchase", "browse"] {
                let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "mallory", "action": action])
                #expect(reply.status == 200, "\(reply.text)")
            }
            try await engine.reviews.recorder.flush(now: engine.clock.now())

            let listed = try await api.send(.get, base, apiKey: reader)
            #expect(listed.status == 200, "\(listed.text)")
            let items = try #require(listed["items"] as? [[String: Any]])
            #expect(items.count == 1 && listed["next"] == nil)
            let item = try #require(items.first)
            #expect(item["status"] as? String == "open" && item["verdicts"] as? Int == 2 && item["subjectKind"] as? String == "user")
            #expect(item["reasons"] as? [String] == ["large-purchase"] && item["action"] as? String == "purchase")
            #expect(!(listed.text.contains("mallory")), "a user id is never kept or shown")
            let id = try #require(item["id"] as? String)

            let shown = try await api.send(.get, "\(base)/\(id)", apiKey: reader)
            #expect(shown.status == 200 && shown["id"] as? String == id, "\(shown.text)")
            let readerClaim = try await api.send(.post, "\(base)/\(id)/claim", apiKey: reader)
            #expect(readerClaim.status == 403, "analyst reads only: \(readerClaim.text)")
            let claimed = try await api.send(.post, "\(base)/\(id)/claim", apiKey: Self.writerKey)
            #expect(claimed.status == 200 && claimed["status"] as? String == "claimed" && claimed["claimedBy"] as? String == "ana", "\(claimed.text)")
            let taken = try await api.post("\(base)/\(id)/decision", json: ["decision": "approve"], apiKey: ServerHarness.adminKey)
            #expect(taken.status == 409 && taken.errorCode == "review_item_claimed", "\(taken.text)")
            let notAdmin = try await api.post("\(base)/\(id)/decision", json: ["decision": "reject", "actions": ["revoke_key"]], apiKey: Self.writerKey)
            #expect(notAdmin.status == 403 && notAdmin.errorCode == "forbidden", "acting on a key takes admin: \(notAdmin.text)")
            let noKey = try await api.post("\(base)/\(id)/decision", json: ["decision": "reject", "actions": ["revoke_key"]], apiKey: ServerHarness.adminKey)
            #expect(noKey.status == 400 && noKey.errorCode == "invalid_field", "the item names no key: \(noKey.text)")
            let badAction = try await api.post("\(base)/\(id)/decision", json: ["decision": "reject", "actions": ["ban"]], apiKey: Self.writerKey)
            #expect(badAction.status == 400 && badAction.errorCode == "invalid_field", "\(badAction.text)")
            let badDecision = try await api.post("\(base)/\(id)/decision", json: ["decision": "maybe"], apiKey: Self.writerKey)
            #expect(badDecision.status == 400 && badDecision.errorCode == "invalid_field", "\(badDecision.text)")
            let control = try await api.post("\(base)/\(id)/decision", json: ["decision": "approve", "note": "a\u{0}b"], apiKey: Self.writerKey)
            #expect(control.status == 400 && control.errorCode == "invalid_field", "\(control.text)")
            let misspelled = try await api.post("\(base)/\(id)/decision", json: ["decision": "approve", "nots": "x"], apiKey: Self.writerKey)
            #expect(misspelled.status == 400 && misspelled.errorCode == "invalid_field", "\(misspelled.text)")

            let decided = try await api.post("\(base)/\(id)/decision", json: ["decision": "approve", "note": "regular customer"], apiKey: Self.writerKey)
            #expect(decided.status == 200 && decided["status"] as? String == "approved" && decided["decidedBy"] as? String == "ana", "\(decided.text)")
            #expect(decided["note"] as? String == "regular customer")
            let labels = try await engine.store.labels(appId: ServerHarness.appId)
            #expect(labels.map { "\($0.kind) \($0.label) \($0.source)" } == ["user legitimate review"])
            let again = try await api.post("\(base)/\(id)/decision", json: ["decision": "reject"], apiKey: Self.writerKey)
            #expect(again.status == 409 && again.errorCode == "review_item_closed", "\(again.text)")
            #expect(try await engine.store.labels(appId: ServerHarness.appId).first?.label == .legitimate, "a refused decision changes nothing")

            let decidedList = try await api.send(.get, "\(base)?status=decided&limit=1", apiKey: reader)
            #expect((decidedList["items"] as? [Any])?.count == 1 && decidedList["next"] as? String == id, "\(decidedList.text)")
            #expect((try await api.send(.get, base, apiKey: reader)["items"] as? [Any])?.isEmpty == true, "the queue is empty")
            for query in ["status=bogus", "limit=0", "limit=501", "cursor=%2B5", "cursor=x", "cursor=00000000000000000001"] {
                let refused = try await api.send(.get, "\(base)?\(query)", apiKey: reader)
                #expect(refused.status == 400 && refused.errorCode == "invalid_field", "\(query): \(refused.text)")
            }
            for path in ["\(base)/0", "\(base)/abc", "\(base)/-1", "\(base)/+1"] {
                let refused = try await api.send(.get, path, apiKey: reader)
                #expect(refused.status == 400 && refused.errorCode == "invalid_field", "\(path): \(refused.text)")
            }
            let missing = try await api.send(.get, "\(base)/999999", apiKey: reader)
            #expect(missing.status == 404 && missing.errorCode == "review_item_not_found", "\(missing.text)")
            let missingClaim = try await api.send(.post, "\(base)/999999/claim", apiKey: Self.writerKey)
            #expect(missingClaim.status == 404 && missingClaim.errorCode == "review_item_not_found", "\(missingClaim.text)")
            let otherApp = try await api.send(.get, "/v1/apps/\(ServerHarness.productionOnlyAppId)/review-items", apiKey: Self.writerKey)
            #expect(otherApp.status == 403 && otherApp.errorCode == "forbidden", "\(otherApp.text)")
            let unknownApp = try await api.send(.get, "/v1/apps/ZZZZZ99999.com.example.none/review-items", apiKey: reader)
            #expect(unknownApp.status == 404 && unknownApp.errorCode == "app_not_found", "\(unknownApp.text)")
            let gateway = try await api.send(.get, base)
            #expect(gateway.status == 403, "the gateway's key has no analyst scope: \(gateway.text)")
        }
    }
}
