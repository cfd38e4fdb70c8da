import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("The review queue in the store")
struct ReviewQueueStoreTests {
    static let app = "TEAMID1234.com.example.app"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func opening(
        _ subject: String, kind: LabelSubjectKind = .key, requestId: String? = nil, score: Double = 40, at offset: TimeInterval = 0,
        lifetime: TimeInterval = 3_600, app: String = app
    ) -> ReviewOpening {
        ReviewOpening(
            appId: app, subjectKind: kind, subject: subject, keyId: kind == .key ? subject : nil, userHash: kind == .user ? subject : "user-hash",
            deviceHash: nil, endpoint: .score, action: "purchase", score: score, fired: "new-device,velocity", ruleSetVersion: "v1",
            requestId: requestId, at: start.addingTimeInterval(offset), expiresAt: start.addingTimeInterval(offset + lifetime)
        )
    }

    static func change(_ id: Int64, by analyst: String, _ kind: ReviewItemChange.Kind, at offset: TimeInterval) -> ReviewItemChange {
        ReviewItemChange(appId: app, itemId: id, analyst: analyst, kind: kind, at: start.addingTimeInterval(offset))
    }

    @Test("verdicts about one subject fold into its pending item; another subject opens its own", arguments: StoreBackend.available)
    func folding(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems([Self.opening("key-a", requestId: "r1")], now: Self.start)
            try await store.openReviewItems([Self.opening("key-a", requestId: "r2", score: 60, at: 10), Self.opening("user-b", kind: .user, at: 11)], now: Self.start)
            let items = try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 10, now: Self.start.addingTimeInterval(20))
            #expect(items.map(\.subject) == ["key-a", "user-b"])
            let first = try #require(items.first)
            #expect(first.verdicts == 2 && first.score == 60 && first.firstRequestId == "r1" && first.lastRequestId == "r2")
            #expect(first.expiresAt == Self.start.addingTimeInterval(3_600), "a folded verdict keeps the item's expiry")
            #expect(first.lastVerdictAt == Self.start.addingTimeInterval(10) && first.userHash == "user-hash")
            // Another process writes an earlier verdict late: it counts, and the item keeps its latest facts.
            try await store.openReviewItems([Self.opening("key-a", requestId: "r0", score: 5, at: 5)], now: Self.start)
            let late = try #require(try await store.reviewItem(appId: Self.app, id: first.id))
            #expect(late.verdicts == 3 && late.score == 60 && late.lastRequestId == "r2" && late.lastVerdictAt == Self.start.addingTimeInterval(10))
            #expect(try await store.reviewItems(appId: "TEAMID1234.com.example.other", filter: .all, cursor: nil, limit: 10, now: Self.start).isEmpty)
            #expect(try await store.reviewItem(appId: "TEAMID1234.com.example.other", id: first.id) == nil, "an item is read with its app")
        }
    }

    @Test("an expired item leaves the queue; the subject's next verdict opens a new item", arguments: StoreBackend.available)
    func expiry(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems([Self.opening("key-a", lifetime: 100)], now: Self.start)
            let later = Self.start.addingTimeInterval(100)
            #expect(try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 10, now: later).isEmpty)
            let expired = try await store.reviewItems(appId: Self.app, filter: .expired, cursor: nil, limit: 10, now: later)
            #expect(expired.count == 1 && expired.first?.status(at: later) == .expired && expired.first?.storedStatus == .open, "expired before any sweep")
            try await store.openReviewItems([Self.opening("key-a", at: 200)], now: later.addingTimeInterval(100))
            let all = try await store.reviewItems(appId: Self.app, filter: .all, cursor: nil, limit: 10, now: later.addingTimeInterval(100))
            #expect(all.map(\.storedStatus) == [.open, .expired] && all.map(\.verdicts) == [1, 1])
            let change = try await store.changeReviewItem(Self.change(all[1].id, by: "ana", .claim, at: 300))
            guard case .closed = change else { Issue.record("claimed an expired item: \(change)"); return }
        }
    }

    @Test("a claim holds the item for its analyst until the hold ends; a decision stores its label in the same step", arguments: StoreBackend.available)
    func claimAndDecide(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems([Self.opening("key-a", lifetime: 86_400)], now: Self.start)
            let id = try #require(try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 1, now: Self.start).first?.id)
            guard case .changed(let claimed) = try await store.changeReviewItem(Self.change(id, by: "ana", .claim, at: 10)) else {
                Issue.record("the claim did not land"); return
            }
            #expect(claimed.storedStatus == .claimed && claimed.claimedBy == "ana")
            let reject = ReviewItemChange.Kind.decide(.reject, note: "farm", followUps: "revoke_key: not run")
            guard case .claimed(let held) = try await store.changeReviewItem(Self.change(id, by: "bob", reject, at: 20)) else {
                Issue.record("another analyst decided a claimed item"); return
            }
            #expect(held.claimedBy == "ana")
            #expect(try await store.labels(appId: Self.app).isEmpty)
            // Past the hold, another analyst may take it over.
            let hold = TimeInterval(ReviewItemStatus.claimHoldSeconds)
            guard case .changed(let decided) = try await store.changeReviewItem(Self.change(id, by: "bob", reject, at: 10 + hold)) else {
                Issue.record("the decision did not land"); return
            }
            #expect(decided.storedStatus == .rejected && decided.decidedBy == "bob" && decided.note == "farm" && decided.followUps == "revoke_key: not run")
            let labels = try await store.labels(appId: Self.app)
            #expect(labels == [FraudLabelRecord(
                appId: Self.app, kind: .key, subject: "key-a", source: ReviewDecision.labelSource, label: .fraud, labelledAt: Self.start.addingTimeInterval(10 + hold)
            )])
            guard case .closed = try await store.changeReviewItem(Self.change(id, by: "bob", .decide(.approve, note: "", followUps: ""), at: 5_000)) else {
                Issue.record("a decided item was decided again"); return
            }
            #expect(try await store.labels(appId: Self.app).first?.label == .fraud)
            try await store.recordReviewFollowUps(appId: Self.app, id: id, followUps: "revoke_key: done")
            #expect(try await store.reviewItem(appId: Self.app, id: id)?.followUps == "revoke_key: done")
            guard case .notFound = try await store.changeReviewItem(Self.change(id + 1_000, by: "ana", .claim, at: 10)) else {
                Issue.record("claimed an item that does not exist"); return
            }
            // The subject's next review verdict opens a new item: the decided one is closed.
            try await store.openReviewItems([Self.opening("key-a", at: 6_000)], now: Self.start.addingTimeInterval(6_000))
            #expect(try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 10, now: Self.start.addingTimeInterval(6_000)).count == 1)
        }
    }

    @Test("of analysts deciding one item at once, exactly one decides it", arguments: StoreBackend.available)
    func concurrentDecisions(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems([Self.opening("key-a", lifetime: 86_400)], now: Self.start)
            let id = try #require(try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 1, now: Self.start).first?.id)
            let outcomes = try await withThrowingTaskGroup(of: ReviewItemChangeOutcome.self) { group in
                for analyst in 0..<8 {
                    let decision: ReviewDecision = analyst.isMultiple(of: 2) ? .approve : .reject
                    group.addTask {
                        try await store.changeReviewItem(Self.change(id, by: "analyst-\(analyst)", .decide(decision, note: "", followUps: ""), at: 60))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let decided = outcomes.compactMap { outcome -> ReviewItemRecord? in
                if case .changed(let item) = outcome { return item }
                return nil
            }
            #expect(decided.count == 1)
            #expect(outcomes.filter { if case .closed = $0 { true } else { false } }.count == 7)
            let label = try #require(try await store.labels(appId: Self.app).first)
            #expect(label.label == (decided.first?.storedStatus == .approved ? .legitimate : .fraud))
        }
    }

    @Test("listings page by id: the queue oldest first, the others latest first", arguments: StoreBackend.available)
    func paging(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems((0..<5).map { Self.opening("key-\($0)", at: TimeInterval($0), lifetime: 86_400) }, now: Self.start)
            let now = Self.start.addingTimeInterval(10)
            let page1 = try await store.reviewItems(appId: Self.app, filter: .pending, cursor: nil, limit: 3, now: now)
            let page2 = try await store.reviewItems(appId: Self.app, filter: .pending, cursor: page1.last?.id, limit: 3, now: now)
            #expect((page1 + page2).map(\.subject) == (0..<5).map { "key-\($0)" })
            let latest = try await store.reviewItems(appId: Self.app, filter: .all, cursor: nil, limit: 2, now: now)
            let older = try await store.reviewItems(appId: Self.app, filter: .all, cursor: latest.last?.id, limit: 10, now: now)
            #expect((latest + older).map(\.subject) == (0..<5).reversed().map { "key-\($0)" })
            _ = try await store.changeReviewItem(Self.change(page1[0].id, by: "ana", .decide(.approve, note: "", followUps: ""), at: 10))
            _ = try await store.changeReviewItem(Self.change(page1[1].id, by: "ana", .claim, at: 10))
            #expect(try await store.reviewItems(appId: Self.app, filter: .decided, cursor: nil, limit: 10, now: now).map(\.subject) == ["key-0"])
            #expect(try await store.reviewItems(appId: Self.app, filter: .claimed, cursor: nil, limit: 10, now: now).map(\.subject) == ["key-1"])
            #expect(try await store.reviewItems(appId: Self.app, filter: .open, cursor: nil, limit: 10, now: now).map(\.subject) == ["key-2", "key-3", "key-4"])
        }
    }

    @Test("a purge deletes items closed before the cutoff and keeps the queue", arguments: StoreBackend.available)
    func purge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.openReviewItems(
                [Self.opening("decided", lifetime: 86_400), Self.opening("expiring", lifetime: 50), Self.opening("pending", lifetime: 86_400)], now: Self.start
            )
            let items = try await store.reviewItems(appId: Self.app, filter: .all, cursor: nil, limit: 10, now: Self.start)
            let decided = try #require(items.first { $0.subject == "decided" })
            _ = try await store.changeReviewItem(Self.change(decided.id, by: "ana", .decide(.approve, note: "", followUps: ""), at: 10))
            #expect(try await store.purgeReviewItems(closedBefore: Self.start.addingTimeInterval(10)) == 0)
            #expect(try await store.purgeReviewItems(closedBefore: Self.start.addingTimeInterval(60)) == 2)
            let left = try await store.reviewItems(appId: Self.app, filter: .all, cursor: nil, limit: 10, now: Self.start.addingTimeInterval(60))
            #expect(left.map(\.subject) == ["pending"])
            #expect(try await store.labels(appId: Self.app).count == 1, "a purge keeps the decision's label")
        }
    }
}
