@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import RiskRules
import Testing

/// The review queue in the engine: review verdicts of chosen actions open items behind the verdict, analysts claim
/// and decide them, a decision labels the subject and may act on its key.
@Suite("The review queue in the engine")
struct ReviewQueueTests {
    static let appId = SimulatorFixtures.app.appId
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            attributes: { amount: number }
            rules:
              - id: large-purchase
                when: attributes.amount > 500
                decide: review
              - id: stolen-card
                when: attributes.amount > 5000
                decide: deny
            """
        do { return try RuleSetLoader.compile(documents: [("a.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func engine(_ store: any RiskStore, clock: ManualClock, mode: AppPolicy.Mode = .enforce, actions: Set<String>? = ["purchase"]) -> Engine {
        Engine(
            store: store,
            apps: AppCatalog([AppPolicy(appId: appId, environments: [.development], mode: mode, review: ReviewPolicy(actions: actions, itemLifetime: 86_400))]),
            settings: EngineSettings(), clock: clock, rules: RuleSetHolder(rules)
        )
    }

    static func request(_ keyId: Data?, user: String = "mallory", action: String = "purchase", amount: Double = 900, requestId: String? = nil) throws -> ScoreRequest {
        var request = ScoreRequest(
            appId: appId, keyId: try keyId.map { try KeyId(bytes: $0) }, userId: try Identifier(user, field: "userId"), action: action,
            attributes: ["amount": .number(amount)]
        )
        request.requestId = requestId
        return request
    }

    static func key(_ store: any RiskStore) async throws -> Data {
        try await ReceiptFleet.register(count: 1, in: store, at: start, placeholderReceipts: true, parallelism: 1)[0].keyId
    }

    @Test("review verdicts of a chosen action open one item per subject; other actions and other decisions open none", arguments: TestStoreBackend.available)
    func opening(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store)
            for index in 0..<3 {
                let outcome = try await engine.scorer.score(try Self.request(keyId, requestId: "req-\(index)"))
                #expect(outcome.verdict.decision == .review)
            }
            _ = try await engine.scorer.score(try Self.request(keyId, action: "claim_promo"))
            _ = try await engine.scorer.score(try Self.request(keyId, amount: 9_000))
            _ = try await engine.scorer.score(try Self.request(nil, user: "walter"))
            #expect(engine.reviews.recorder.queued == 2)
            try await engine.reviews.recorder.flush(now: clock.now())
            let page = try await engine.reviews.items(appId: Self.appId, filter: .pending, cursor: nil, limit: 10)
            #expect(page.items.map(\.subjectKind) == [.key, .user] && page.next == nil)
            let item = try #require(page.items.first)
            #expect(item.verdicts == 3 && item.firstRequestId == "req-0" && item.lastRequestId == "req-2" && item.fired == "large-purchase")
            #expect(item.keyId == (try KeyId(bytes: keyId)).base64 && item.expiresAt == Self.start.addingTimeInterval(86_400))
            #expect(page.items[1].subject == EngineSettings().velocityKeying.subject(.user, "walter"), "a user is kept as its keyed hash")
        }
    }

    @Test("monitor mode opens items for the rules' review; an app without a review policy opens none")
    func modes() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let monitoring = Self.engine(test.store, clock: clock, mode: .monitor, actions: nil)
            let outcome = try await monitoring.scorer.score(try Self.request(nil, action: "anything"))
            #expect(outcome.verdict.decision == .allow && monitoring.reviews.recorder.queued == 1, "* takes every action")
            let off = Engine(
                store: test.store, apps: AppCatalog([AppPolicy(appId: Self.appId, environments: [.development])]), settings: EngineSettings(), clock: clock,
                rules: RuleSetHolder(Self.rules)
            )
            _ = try await off.scorer.score(try Self.request(nil))
            #expect(off.reviews.recorder.queued == 0)
        }
    }

    @Test("a rejection labels the key fraud, revokes it and sets its bit, each action once; a claim keeps others off", arguments: TestStoreBackend.available)
    func reject(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store)
            _ = try await engine.scorer.score(try Self.request(keyId))
            try await engine.reviews.recorder.flush(now: clock.now())
            let id = try #require(try await engine.reviews.items(appId: Self.appId, filter: .pending, cursor: nil, limit: 1).items.first?.id)
            clock.advance(by: 60)
            let claimed = try await engine.reviews.claim(appId: Self.appId, id: id, analyst: "ana")
            #expect(claimed.storedStatus == .claimed && claimed.claimedAt == clock.now())
            do {
                _ = try await engine.reviews.decide(appId: Self.appId, id: id, analyst: "bob", decision: .approve, note: "", followUps: [])
                Issue.record("another analyst decided a claimed item")
            } catch let error as EngineError {
                #expect(error.code == .reviewItemClaimed && error.message.contains("ana"), "\(error)")
            }
            let decided = try await engine.reviews.decide(
                appId: Self.appId, id: id, analyst: "ana", decision: .reject, note: "card testing", followUps: [.revokeKey, .setDeviceCheckBit1, .revokeKey]
            )
            #expect(decided.storedStatus == .rejected && decided.decidedBy == "ana" && decided.note == "card testing")
            #expect(decided.followUps == "revoke_key: done\nset_devicecheck_bit1: done")
            #expect(try await test.store.reviewItem(appId: Self.appId, id: id)?.followUps == decided.followUps)
            #expect(try await test.store.key(appId: Self.appId, keyId: keyId)?.status == .revoked)
            let labels = try await test.store.labels(appId: Self.appId)
            #expect(labels.map { "\($0.kind) \($0.label) \($0.source)" } == ["key fraud review"])
            do {
                _ = try await engine.reviews.decide(appId: Self.appId, id: id, analyst: "ana", decision: .approve, note: "", followUps: [])
                Issue.record("a decided item was decided again")
            } catch let error as EngineError {
                #expect(error.code == .reviewItemClosed)
            }
        }
    }

    @Test("bad decisions are refused before anything changes")
    func refusals() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            _ = try await engine.scorer.score(try Self.request(nil))
            try await engine.reviews.recorder.flush(now: clock.now())
            let id = try #require(try await engine.reviews.items(appId: Self.appId, filter: .pending, cursor: nil, limit: 1).items.first?.id)
            let refusals: [(ReviewDecision, String, [ReviewFollowUp], ErrorCode)] = [
                (.approve, "", [.revokeKey], .invalidField),
                (.reject, "", [.revokeKey], .invalidField),
                (.reject, String(repeating: "x", count: ReviewService.maximumNoteBytes + 1), [], .invalidField),
            ]
            for (decision, note, followUps, code) in refusals {
                do {
                    _ = try await engine.reviews.decide(appId: Self.appId, id: id, analyst: "ana", decision: decision, note: note, followUps: followUps)
                    Issue.record("\(decision) \(followUps) was taken")
                } catch let error as EngineError {
                    #expect(error.code == code, "\(error)")
                }
            }
            do {
                _ = try await engine.reviews.claim(appId: Self.appId, id: id + 1, analyst: "ana")
                Issue.record("claimed an item that does not exist")
            } catch let error as EngineError {
                #expect(error.code == .reviewItemNotFound)
            }
            #expect(try await test.store.labels(appId: Self.appId).isEmpty)
            #expect(try await test.store.reviewItem(appId: Self.appId, id: id)?.storedStatus == .open)
            // The item expires undecided.
            clock.advance(by: 86_400)
            do {
                _ = try await engine.reviews.decide(appId: Self.appId, id: id, analyst: "ana", decision: .approve, note: "", followUps: [])
                Issue.record("decided an expired item")
            } catch let error as EngineError {
                #expect(error.code == .reviewItemClosed && error.message.contains("expired"))
            }
        }
    }

    @Test("a write that fails keeps its openings, and a later verdict about the subject folds into them as the later one")
    func failedWrite() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let faulty = FaultyScoringStore(test.store)
            let clock = ManualClock(Self.start)
            let engine = Self.engine(faulty, clock: clock)
            _ = try await engine.scorer.score(try Self.request(nil, amount: 600, requestId: "first"))
            faulty.failReviewOpenings(with: StoreError(.unavailable, "down"))
            await #expect(throws: EngineError.self) { try await engine.reviews.recorder.flush(now: clock.now()) }
            clock.advance(by: 5)
            _ = try await engine.scorer.score(try Self.request(nil, amount: 700, requestId: "second"))
            #expect(engine.reviews.recorder.queued == 1)
            faulty.failReviewOpenings(with: nil)
            try await engine.reviews.recorder.flush(now: clock.now())
            let item = try #require(try await engine.reviews.items(appId: Self.appId, filter: .pending, cursor: nil, limit: 5).items.first)
            #expect(item.verdicts == 2 && item.firstRequestId == "first" && item.lastRequestId == "second")
            #expect(item.openedAt == Self.start && item.lastVerdictAt == Self.start.addingTimeInterval(5))
        }
    }
}
