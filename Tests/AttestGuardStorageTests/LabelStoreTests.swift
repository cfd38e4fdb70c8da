import AttestTestSupport
import AttestVocabulary
import Foundation
@testable import AttestGuardStore
import Testing

/// Fraud labels in the store: idempotent on (app, subject, source), the later word winning, a batch atomic; read
/// back per app and per decision; a decision found by its request id.
@Suite("Fraud labels in the store")
struct LabelStoreTests {
    static let appId = StoreFixtures.appId
    static let now = StoreFixtures.now

    static func label(
        _ kind: LabelSubjectKind = .user, _ subject: String = "hash-1", source: String = "chargebacks", _ value: FraudLabel = .fraud,
        at offset: TimeInterval = 0, app: String = appId
    ) -> FraudLabelRecord {
        FraudLabelRecord(appId: app, kind: kind, subject: subject, source: source, label: value, labelledAt: now.addingTimeInterval(offset))
    }

    @Test("the same label again is unchanged; a different one as late or later replaces it, an older one does not", arguments: StoreBackend.available)
    func idempotency(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.storeLabels([Self.label()]) == [.created])
            #expect(try await store.storeLabels([Self.label()]) == [.unchanged])
            #expect(try await store.storeLabels([Self.label(at: 60)]) == [.unchanged], "the same label later keeps the first time")
            #expect(try await store.storeLabels([Self.label(.user, "hash-1", .legitimate, at: -60)]) == [.unchanged], "an older word loses")
            #expect(try await store.labels(appId: Self.appId) == [Self.label()])
            #expect(try await store.storeLabels([Self.label(.user, "hash-1", .legitimate, at: 30)]) == [.replaced])
            #expect(try await store.storeLabels([Self.label(.user, "hash-1", .fraud, at: 30)]) == [.replaced], "a tie in time: the later write")
            #expect(try await store.labels(appId: Self.appId) == [Self.label(at: 30)])
            // Another source of the same subject is a label of its own.
            #expect(try await store.storeLabels([Self.label(source: "support-case-7", .legitimate)]) == [.created])
            #expect(try await store.labels(appId: Self.appId).count == 2)
        }
    }

    @Test("a deletion takes one subject's labels of one source or of all, and nothing of another subject or app", arguments: StoreBackend.available)
    func deletion(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let kept = [
                Self.label(.user, "hash-2"), Self.label(.device, "hash-1"), Self.label(.user, "hash-1", app: StoreFixtures.otherAppId),
            ]
            _ = try await store.storeLabels(kept + [
                Self.label(), Self.label(source: "support-case-7", .legitimate), Self.label(source: "support-case-8"),
            ])
            #expect(try await store.deleteLabels(appId: Self.appId, kind: .user, subject: "hash-1", source: "support-case-7") == 1)
            #expect(try await store.labels(appId: Self.appId).filter { $0.kind == .user && $0.subject == "hash-1" }.map(\.source)
                == ["chargebacks", "support-case-8"])
            #expect(try await store.deleteLabels(appId: Self.appId, kind: .user, subject: "hash-1", source: nil) == 2)
            #expect(try await store.deleteLabels(appId: Self.appId, kind: .user, subject: "hash-1", source: nil) == 0, "again: nothing left")
            #expect(try await store.deleteLabels(appId: Self.appId, kind: .key, subject: "hash-1", source: nil) == 0, "another kind")
            #expect(Set(try await store.labels(appId: nil)) == Set(kept))
        }
    }

    @Test("a batch reports each label in order, folds repeats, and reads back per app", arguments: StoreBackend.available)
    func batches(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            _ = try await store.storeLabels([Self.label(.key, "a2V5", .legitimate)])
            let outcomes = try await store.storeLabels([
                Self.label(.decision, "req-1"),
                Self.label(.key, "a2V5", .fraud, at: 10),
                Self.label(.decision, "req-1"),
                Self.label(.device, "dev-hash", .legitimate, app: StoreFixtures.otherAppId),
                Self.label(.key, "a2V5", .fraud, at: 20),
            ])
            #expect(outcomes == [.created, .replaced, .unchanged, .created, .unchanged])
            #expect(try await store.labels(appId: Self.appId) == [Self.label(.decision, "req-1"), Self.label(.key, "a2V5", .fraud, at: 10)])
            #expect(try await store.labels(appId: StoreFixtures.otherAppId) == [Self.label(.device, "dev-hash", .legitimate, app: StoreFixtures.otherAppId)])
            #expect(try await store.labels(appId: nil).count == 3)
            #expect(try await store.storeLabels([]) == [])
        }
    }

    @Test("a logged decision's request id reads back; its subjects' labels are found and the decision's own comes first", arguments: StoreBackend.available)
    func decisionsAndTheirLabels(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let entry = DecisionLogEntry(
                appId: Self.appId, decidedAt: Self.now, endpoint: .score, keyId: "a2V5", userHash: "user-hash", ipHash: nil, deviceHash: "dev-hash",
                decision: .review, ruleDecision: .review, score: 60, ruleSetVersion: "sha256:x", fired: "key-farm", signals: "{}", requestId: "req-42"
            )
            let other = DecisionLogEntry(
                appId: Self.appId, decidedAt: Self.now.addingTimeInterval(1), endpoint: .score, keyId: nil, userHash: "user-hash", ipHash: nil,
                decision: .allow, ruleDecision: .allow, score: 0, ruleSetVersion: "sha256:x", fired: "", signals: "{}"
            )
            try await store.appendDecisions([entry, other])
            let found = try #require(try await store.decision(appId: Self.appId, requestId: "req-42"))
            #expect(found.requestId == "req-42" && found.keyId == "a2V5" && found.fired == "key-farm")
            #expect(try await store.decision(appId: StoreFixtures.otherAppId, requestId: "req-42") == nil)
            #expect(try await store.decision(appId: Self.appId, requestId: "req-43") == nil)
            let page = try await store.decisions(since: Self.now.addingTimeInterval(-1), after: nil, limit: 10)
            #expect(page.map(\.requestId) == ["req-42", nil])

            _ = try await store.storeLabels([
                Self.label(.user, "user-hash", .fraud), Self.label(.key, "a2V5", .legitimate), Self.label(.device, "unrelated"),
                Self.label(.user, "user-hash", .fraud, app: StoreFixtures.otherAppId),
            ])
            let labels = try await store.labels(for: [entry, other])
            #expect(Set(labels) == [Self.label(.user, "user-hash", .fraud), Self.label(.key, "a2V5", .legitimate)])
            let applying = DecisionLabels(labels)
            #expect(applying.label(of: entry)?.kind == .key, "the key's label before the user's")
            #expect(applying.label(of: other)?.label == .fraud)
            _ = try await store.storeLabels([Self.label(.decision, "req-42", .fraud)])
            #expect(DecisionLabels(try await store.labels(for: [entry])).label(of: entry) == Self.label(.decision, "req-42", .fraud))
        }
    }

    @Test("among one subject's sources the latest word applies, fraud on a tie")
    func latestSourceApplies() {
        let entry = DecisionLogEntry(
            appId: Self.appId, decidedAt: Self.now, endpoint: .score, keyId: nil, userHash: "u", ipHash: nil, decision: .allow, ruleDecision: .allow,
            score: 0, ruleSetVersion: "v", fired: "", signals: "{}"
        )
        let labels = DecisionLabels([
            Self.label(.user, "u", source: "a", .legitimate, at: 10), Self.label(.user, "u", source: "b", .fraud, at: 5),
        ])
        #expect(labels.label(of: entry)?.source == "a")
        let tie = DecisionLabels([Self.label(.user, "u", source: "a", .legitimate), Self.label(.user, "u", source: "b", .fraud)])
        #expect(tie.label(of: entry)?.label == .fraud)
        #expect(DecisionLabels([Self.label(.device, "u")]).label(of: entry) == nil, "a device label does not apply to a user")
    }
}
