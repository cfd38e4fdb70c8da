@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import RiskRules
import Testing

/// The nightly sweep in the engine: every active key, a page at a time, scored with the sweep rule set; the fired
/// rules' actions queued and run as a verdict's, never in a dry run, monitored in monitor mode.
@Suite("The nightly sweep in the engine")
struct KeySweepTests {
    static let appId = SimulatorFixtures.app.appId
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            rules:
              - id: labelled-user
                when: label.user == "fraud"
                decide: deny
                then: revoke_key
              - id: every-key
                when: key.status == "active"
                score: 1
            """
        do { return try RuleSetLoader.compile(documents: [("a.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func engine(_ store: any RiskStore, clock: ManualClock, mode: AppPolicy.Mode = .enforce) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development], mode: mode)]), settings: EngineSettings(),
            clock: clock, rules: RuleSetHolder(rules)
        )
    }

    @Test("pages through every active key; reads the key's user; a dry run queues nothing; the sweep revokes", arguments: TestStoreBackend.available)
    func sweep(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keys = try await ReceiptFleet.register(count: 5, in: test.store, at: Self.start, placeholderReceipts: true, parallelism: 1)
            let flaggedKey = try #require(keys.first)
            let user = try #require(try await test.store.key(appId: Self.appId, keyId: flaggedKey.keyId)?.userId)
            _ = try await test.store.storeLabels([FraudLabelRecord(
                appId: Self.appId, kind: .user, subject: EngineSettings().velocityKeying.subject(.user, user), source: "chargebacks", label: .fraud,
                labelledAt: Self.start
            )])
            _ = try await engine.keys.revoke(appId: Self.appId, keyId: keys[4].keyId, by: "test")

            let dry = try await engine.sweep.run(Self.rules, dryRun: true, pageSize: 2)
            let dryApp = try #require(dry.apps.first)
            #expect(dryApp.keys == 4 && dryApp.flagged == 1 && dryApp.failed == 0, "a revoked key is not swept: \(dryApp)")
            #expect(dryApp.rules == ["labelled-user": 1, "every-key": 4] && dryApp.actions == ["revoke_key": 1])
            #expect(dryApp.flaggedKeys.map(\.keyId) == [flaggedKey.keyId.base64EncodedString()])
            #expect(engine.ruleActions.queue.queued == 0)
            #expect(try await test.store.key(appId: Self.appId, keyId: flaggedKey.keyId)?.status == .active)

            let swept = try await engine.sweep.run(Self.rules, dryRun: false, pageSize: 2)
            #expect(swept.apps.first?.flagged == 1)
            #expect(try await test.store.key(appId: Self.appId, keyId: flaggedKey.keyId)?.status == .revoked, "the action ran between pages")
            let runs = try await engine.ruleActions.runs(appId: Self.appId, limit: 5)
            #expect(runs.map { "\($0.claim.action) \($0.claim.ruleId) \($0.outcome)" } == ["revoke_key labelled-user done"])
            #expect(try await engine.sweep.run(Self.rules, dryRun: false).apps.first?.keys == 3)
        }
    }

    @Test("an app in monitor mode: flagged and counted, nothing run")
    func monitor() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock, mode: .monitor)
            let keys = try await ReceiptFleet.register(count: 1, in: test.store, at: Self.start, placeholderReceipts: true, parallelism: 1)
            let user = try #require(try await test.store.key(appId: Self.appId, keyId: keys[0].keyId)?.userId)
            _ = try await test.store.storeLabels([FraudLabelRecord(
                appId: Self.appId, kind: .user, subject: EngineSettings().velocityKeying.subject(.user, user), source: "chargebacks", label: .fraud,
                labelledAt: Self.start
            )])
            let report = try await KeySweepJob(engine: engine, ruleSet: Self.rules).run()
            #expect(report.apps.first?.flagged == 1 && report.dryRun == false)
            #expect(engine.ruleActions.queue.queued == 0)
            #expect(try await test.store.key(appId: Self.appId, keyId: keys[0].keyId)?.status == .active)
        }
    }

    /// Runs `body` with an engine on a fresh SQLite store holding `count` registered keys, its clock at ``start``.
    static func withFleet(of count: Int, _ body: (ManualClock, Engine) async throws -> Void) async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            _ = try await ReceiptFleet.register(count: count, in: test.store, at: Self.start, placeholderReceipts: true, parallelism: 1)
            try await body(clock, engine)
        }
    }

    @Test("serve's daily sweep: one process of those sharing the store claims the day; a stopped one's is taken over")
    func dailyClaim() async throws {
        try await Self.withFleet(of: 3) { clock, engine in
            // Two processes' jobs on one store (each job keeps its own view of the days).
            let first = KeySweepJob(engine: engine, ruleSet: Self.rules)
            let second = KeySweepJob(engine: engine, ruleSet: Self.rules)
            clock.set(Self.start.addingTimeInterval(57_300))  // 23:55 UTC
            let day = try #require(try await first.claimToday(owner: "first"))
            #expect(try await first.claimToday(owner: "first") == nil, "a process starts its day's sweep once")
            #expect(try await second.claimToday(owner: "second") == nil, "another process leaves a claimed day alone")
            // Past midnight with its sweep still to end, the first process claims no second day beside it.
            clock.advance(by: 400)
            #expect(try await first.claimToday(owner: "first") == nil)
            #expect(try await first.runClaimed(day: day, owner: "first", pageSize: 2).apps.first?.keys == 3)
            let next = try #require(try await first.claimToday(owner: "first"), "its sweep over, it claims the new day")
            #expect(next != day)
            #expect(try await first.runClaimed(day: next, owner: "first").apps.first?.keys == 3)
            clock.advance(by: KeySweepJob.staleAfter + 1)
            #expect(try await second.claimToday(owner: "second") == nil, "a finished day is not swept again")

            // The next day: the first process claims it and stops; the second asks again only every so often, and
            // takes the day over once the claim is stale, not before. The first, renewing at its first page, stops.
            clock.advance(by: 86_400)
            let third = try #require(try await first.claimToday(owner: "first"))
            #expect(try await second.claimToday(owner: "second") == nil)
            clock.advance(by: KeySweepJob.staleAfter - 1)
            #expect(try await second.claimToday(owner: "second") == nil, "held within the stale bound")
            clock.advance(by: KeySweepJob.askAgainAfter - 1)
            #expect(try await second.claimToday(owner: "second") == nil, "stale, but asked too lately to ask again")
            clock.advance(by: 1)
            #expect(try await second.claimToday(owner: "second") == third)
            await #expect(throws: KeySweepStopped.self) { try await first.runClaimed(day: third, owner: "first", pageSize: 1) }
            #expect(try await second.runClaimed(day: third, owner: "second").apps.first?.keys == 3)

            // A sweep that shows no progress for longer than the stale bound holds the next day back no more.
            let stuck = KeySweepJob(engine: engine, ruleSet: Self.rules)
            clock.advance(by: 86_400)
            let fourth = try #require(try await stuck.claimToday(owner: "stuck"))
            clock.advance(by: 86_400)
            let fifth = try #require(try await stuck.claimToday(owner: "stuck"))
            #expect(fifth != fourth)
        }
    }

    @Test("serve's continuous refresher claims the day after its first pass and sweeps: a labelled user's key is revoked")
    func continuousRefresherSweeps() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(RefreshHarness.batchAt)
            let engine = Self.engine(test.store, clock: clock)
            let keys = try await ReceiptFleet.register(count: 2, in: test.store, parallelism: 1)
            let user = try #require(try await test.store.key(appId: Self.appId, keyId: keys[0].keyId)?.userId)
            _ = try await test.store.storeLabels([FraudLabelRecord(
                appId: Self.appId, kind: .user, subject: EngineSettings().velocityKeying.subject(.user, user), source: "chargebacks", label: .fraud,
                labelledAt: RefreshHarness.batchAt
            )])
            try await RefreshHarness.withScheduler(store: test.store, clock: clock) { _, scheduler in
                var scheduler = scheduler
                scheduler.sweep = KeySweepJob(engine: engine, ruleSet: Self.rules)
                let configured = scheduler
                let loop = Task { try await configured.runContinuously() }
                var status = try await test.store.key(appId: Self.appId, keyId: keys[0].keyId)?.status
                for _ in 0..<1_200 where status != .revoked {
                    try await Task.sleep(for: .milliseconds(50))
                    status = try await test.store.key(appId: Self.appId, keyId: keys[0].keyId)?.status
                }
                loop.cancel()
                _ = await loop.result
                #expect(status == .revoked, "the loop's sweep ran the rule's revoke_key")
                #expect(try await test.store.key(appId: Self.appId, keyId: keys[1].keyId)?.status == .active)
            }
        }
    }

    @Test("a claimed sweep that fails gives its day up to another process; this one does not try it again")
    func failedSweepReleasesTheDay() async throws {
        try await Self.withFleet(of: 2) { _, engine in
            struct Unreadable: Error {}
            let failing = KeySweepJob(sweep: engine.sweep, ruleSet: Self.rules) { throw Unreadable() }
            let other = KeySweepJob(engine: engine, ruleSet: Self.rules)
            let day = try #require(try await failing.claimToday(owner: "failing"))
            await #expect(throws: Unreadable.self) { try await failing.runClaimed(day: day, owner: "failing") }
            #expect(try await failing.claimToday(owner: "failing") == nil, "one try a day per process")
            #expect(try await other.claimToday(owner: "other") == day, "the released day is taken at once")
            #expect(try await other.runClaimed(day: day, owner: "other").apps.first?.keys == 2)
        }
    }
}
