@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import RiskRules
import Testing

/// Rule actions in the engine: queued by the verdict, run behind it at most once per target and period across
/// processes, never run in monitor mode.
@Suite("Rule actions in the engine")
struct RuleActionServiceTests {
    static let appId = SimulatorFixtures.app.appId
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            lists:
              blocked_ips: { managed: true, kind: cidr }
            rules:
              - id: farm
                when: request.action == "farm"
                decide: deny
                then: [revoke_key, 'add_to_list("blocked_ips", request.ip, 1h)', 'label(fraud, "rule-farm", user)']
            """
        do { return try RuleSetLoader.compile(documents: [("a.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func engine(_ store: any RiskStore, clock: ManualClock, mode: AppPolicy.Mode = .enforce) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development], mode: mode)]), settings: EngineSettings(),
            clock: clock, rules: RuleSetHolder(rules)
        )
    }

    static func farmRequest(_ keyId: Data, user: String = "mallory", ip: String = "203.0.113.9") throws -> ScoreRequest {
        ScoreRequest(
            appId: appId, keyId: try KeyId(bytes: keyId), userId: try Identifier(user, field: "userId"), ip: try ClientIP(ip, field: "ip"), action: "farm"
        )
    }

    static func key(_ store: any RiskStore, at now: Date) async throws -> Data {
        try await ReceiptFleet.register(count: 1, in: store, at: now, placeholderReceipts: true, parallelism: 1)[0].keyId
    }

    @Test("enforce: the key is revoked, the address blocked and the user labelled, once however often the rule fires", arguments: TestStoreBackend.available)
    func enforce(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store, at: Self.start)
            _ = try await engine.lists.create(name: "blocked_ips", kind: .cidr, description: "", actor: "test")
            for _ in 0..<3 {
                let outcome = try await engine.scorer.score(try Self.farmRequest(keyId))
                #expect(outcome.verdict.decision == .deny, "the verdict does not wait for the actions")
            }
            #expect(engine.ruleActions.queue.queued == 3, "three actions, each queued once")
            #expect(try await engine.ruleActions.run() == 3)

            #expect(try await test.store.key(appId: Self.appId, keyId: keyId)?.status == .revoked)
            let entries = try await engine.lists.contents(of: "blocked_ips").entries
            #expect(entries.map(\.value) == ["203.0.113.9"], "\(entries)")
            #expect(entries.first?.addedBy == "rule:farm")
            #expect(entries.first?.expiresAt == Self.start.addingTimeInterval(3_600))
            let user = EngineSettings().velocityKeying.subject(.user, "mallory")
            let labels = try await test.store.labels(appId: Self.appId)
            #expect(labels.map { "\($0.kind) \($0.subject) \($0.label) \($0.source)" } == ["user \(user) fraud rule-farm"])
            let runs = try await engine.ruleActions.runs(appId: Self.appId, limit: 10)
            #expect(Set(runs.map { "\($0.claim.action) \($0.outcome)" }) == ["revoke_key done", "add_to_list done", "label done"])
            #expect(runs.allSatisfy { $0.claim.ruleId == "farm" && $0.claim.heldUntil > Self.start })

            // The rule fires again at once: nothing is queued. A day later the hold has ended: the key is already
            // revoked and the label already given, and the address is blocked again.
            _ = try await engine.scorer.score(try Self.farmRequest(keyId))
            #expect(engine.ruleActions.queue.queued == 0)
            clock.advance(by: 86_401)
            _ = try await engine.scorer.score(try Self.farmRequest(keyId))
            #expect(try await engine.ruleActions.run() == 3)
            let later = try await engine.ruleActions.runs(appId: Self.appId, limit: 10)
            #expect(Set(later.map { "\($0.claim.action) \($0.outcome)" }) == ["revoke_key unchanged", "add_to_list done", "label unchanged"])
        }
    }

    @Test("two processes that queue the same action: one runs it, the other finds it claimed", arguments: TestStoreBackend.available)
    func twoProcesses(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let first = Self.engine(test.store, clock: clock)
            let second = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store, at: Self.start)
            _ = try await first.lists.create(name: "blocked_ips", kind: .cidr, description: "", actor: "test")
            _ = try await first.scorer.score(try Self.farmRequest(keyId))
            _ = try await second.scorer.score(try Self.farmRequest(keyId))
            async let ranFirst = first.ruleActions.run()
            async let ranSecond = second.ruleActions.run()
            #expect(try await ranFirst + ranSecond == 3, "each action ran once")
            #expect(try await first.ruleActions.runs(appId: nil, limit: 10).count == 3)
        }
    }

    @Test("monitor: the actions are counted and logged, never run; an action with nothing to act on is not queued", arguments: TestStoreBackend.available)
    func monitor(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock, mode: .monitor)
            let keyId = try await Self.key(test.store, at: Self.start)
            let outcome = try await engine.scorer.score(try Self.farmRequest(keyId))
            #expect(outcome.verdict.decision == .allow && outcome.verdict.ruleDecision == .deny)
            #expect(engine.ruleActions.queue.queued == 0)
            #expect(try await engine.ruleActions.run() == 0)
            #expect(try await test.store.key(appId: Self.appId, keyId: keyId)?.status == .active)

            let enforcing = Self.engine(test.store, clock: clock)
            _ = try await enforcing.scorer.score(ScoreRequest(appId: Self.appId, action: "farm"))
            #expect(enforcing.ruleActions.queue.queued == 0, "no key, no user, no address: nothing to act on")
        }
    }

    @Test("an action that fails is recorded as failed and held for its period; a store that does not answer keeps it queued")
    func failures() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store, at: Self.start)
            // No list `blocked_ips` in the store: the entry cannot be added.
            _ = try await engine.scorer.score(try Self.farmRequest(keyId))
            #expect(try await engine.ruleActions.run() == 3)
            let runs = try await engine.ruleActions.runs(appId: Self.appId, limit: 10)
            let failed = try #require(runs.first { $0.claim.action == "add_to_list" })
            #expect(failed.outcome == .failed && failed.detail.hasPrefix("list_not_found"), "\(failed)")
            // Another process queues the same actions: the store's claims hold the key's and the failed entry's.
            let other = Self.engine(test.store, clock: clock)
            _ = try await other.scorer.score(try Self.farmRequest(keyId, user: "other"))
            #expect(try await other.ruleActions.run() == 1, "only the new user's label: the failed entry holds its period")
        }
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let faulty = FaultyScoringStore(test.store)
            let clock = ManualClock(Self.start)
            let engine = Self.engine(faulty, clock: clock)
            let keyId = try await Self.key(faulty, at: Self.start)
            _ = try await engine.lists.create(name: "blocked_ips", kind: .cidr, description: "", actor: "test")
            _ = try await engine.scorer.score(try Self.farmRequest(keyId))
            faulty.failRuleActionClaims(with: StoreError(.unavailable, "down"))
            await #expect(throws: EngineError.self) { try await engine.ruleActions.run() }
            #expect(engine.ruleActions.queue.queued == 3, "kept for the next run")
            faulty.failRuleActionClaims(with: nil)
            #expect(try await engine.ruleActions.run() == 3)
        }
    }

    @Test("an address already inside a longer block is left as it is; a monitored action runs once the app enforces")
    func coveredAndSwitched() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keyId = try await Self.key(test.store, at: Self.start)
            _ = try await engine.lists.create(name: "blocked_ips", kind: .cidr, description: "", actor: "test")
            _ = try await engine.lists.change("blocked_ips", .add([ManagedListEntrySubmission(value: "203.0.113.0/24", position: "entry 1")]), actor: "analyst")
            _ = try await engine.scorer.score(try Self.farmRequest(keyId))
            #expect(try await engine.ruleActions.run() == 3)
            let entries = try await engine.lists.contents(of: "blocked_ips").entries
            #expect(entries.map(\.value) == ["203.0.113.0/24"] && entries.first?.expiresAt == nil, "the analyst's block stays whole")
            let runs = try await engine.ruleActions.runs(appId: Self.appId, limit: 10)
            #expect(runs.first { $0.claim.action == "add_to_list" }?.outcome == .unchanged)
        }

        let queue = RuleActionQueue()
        let values = Self.rules.values(now: Self.start.timeIntervalSince1970)
        values.set("request.action", .string("farm"))
        values.set("request.ip", .string("203.0.113.9"))
        let evaluation = Self.rules.evaluate(values)
        let request = try Self.farmRequest(Data(repeating: 7, count: 32))
        let subjects = HashedSubjects(key: nil, user: "u", device: nil, ip: nil)
        queue.submit(evaluation, request: request, subjects: subjects, mode: .monitor, now: Self.start)
        queue.submit(evaluation, request: request, subjects: subjects, mode: .monitor, now: Self.start)
        #expect(queue.queued == 0)
        queue.submit(evaluation, request: request, subjects: subjects, mode: .enforce, now: Self.start.addingTimeInterval(1))
        #expect(queue.queued == 3, "what monitor mode saw is run once the app enforces")
        let bounded = RuleActionQueue(maximumQueued: 2)
        bounded.submit(evaluation, request: request, subjects: subjects, mode: .enforce, now: Self.start)
        #expect(bounded.queued == 2, "past the bound an action is dropped")
        _ = bounded.takeAll()
        bounded.submit(evaluation, request: request, subjects: subjects, mode: .enforce, now: Self.start)
        #expect(bounded.queued == 1, "a dropped action is queued by the next verdict that asks for it")
    }
}
