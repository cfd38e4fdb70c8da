import AttestVocabulary
@testable import AttestGuardEngine
import AttestTestSupport
import Foundation
import RiskRules
import AttestGuardStore
import Synchronization
import Testing

@Suite("Velocity")
struct VelocityTests {
    static let appId = "ABCDE12345.com.example.attestguard"
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// A rule set that reads score-request velocity per user over 1 minute, 1 hour, 7 days and 30 days.
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            rules:
              - id: busy-user
                when: velocity.score_requests.user.1m >= 5
                score: 50
                reason: "{velocity.score_requests.user.1m} in a minute, {velocity.score_requests.user.1h} in an hour"
              - id: weekly
                when: velocity.score_requests.user.7d > 1000
                score: 1
              - id: monthly
                when: velocity.score_requests.user.30d > 100000
                score: 1
            """
        do { return try RuleSetLoader.compile(documents: [("v.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func engine(_ store: any RiskStore, clock: ManualClock) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development])]), settings: EngineSettings(),
            clock: clock, rules: RuleSetHolder(rules)
        )
    }

    static func score(_ engine: Engine, user: String) async throws -> RiskScorer.Outcome {
        try await engine.scorer.score(ScoreRequest(appId: appId, userId: try Identifier(user, field: "userId"), ip: try ClientIP("203.0.113.9", field: "ip")))
    }

    static func count(_ outcome: RiskScorer.Outcome, _ name: String) -> Double? {
        if case .number(let value)?? = outcome.signals[name] { return value }
        return nil
    }

    @Test("a subject is the first 16 bytes of HMAC-SHA-256(key, dimension NUL value) in hex (values computed with Python's hmac)")
    func subjectHashes() {
        #expect(VelocityKeying.publicTestKey.subject(.user, "alice") == "4ffe3fce32ee4d975f3613eb753f0a6f")
        #expect(VelocityKeying.publicTestKey.subject(.ip, "203.0.113.9") == "d4dc4216b7aaa88c6cf593440b118297")
        // Asked again, the hash comes from the memo: the same text.
        #expect(VelocityKeying.publicTestKey.subject(.user, "alice") == "4ffe3fce32ee4d975f3613eb753f0a6f")
        #expect(VelocityKeying.publicTestKey.subject(.device, "alice") != VelocityKeying.publicTestKey.subject(.user, "alice"))
        #expect(VelocityKeying.publicTestKey.subject(.user, "alicf") != VelocityKeying.publicTestKey.subject(.user, "alice"), "same length, other bytes")
    }

    @Test("two server processes sharing PostgreSQL see each other's events after a flush", arguments: TestStoreBackend.postgresOnly)
    func twoProcesses(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let other = try await test.reopen()
            let clock = ManualClock(Self.start)
            let first = Self.engine(test.store, clock: clock)
            let second = Self.engine(other.store, clock: clock)
            for _ in 0..<3 { _ = try await Self.score(first, user: "u1") }
            for _ in 0..<2 { _ = try await Self.score(second, user: "u1") }
            // Each process sees its own events before any flush (they count the request being scored too).
            #expect(Self.count(try await Self.score(first, user: "u1"), "velocity.score_requests.user.1m") == 4)
            try await first.velocity.flush()
            try await second.velocity.flush()
            #expect(first.velocity.backlog.pending == 0)
            let seen = try await Self.score(second, user: "u1")
            #expect(Self.count(seen, "velocity.score_requests.user.1m") == 7)
            #expect(seen.evaluation.fired.map(\.id) == ["busy-user"])
            #expect(seen.evaluation.fired.first?.reason == "7 in a minute, 7 in an hour")
            #expect(Self.count(try await Self.score(first, user: "u2"), "velocity.score_requests.user.1m") == 1)
            await other.close()
        }
    }

    @Test("windows slide with the clock: two minutes later the 1m count drops, the 1h count keeps them", arguments: TestStoreBackend.available)
    func windows(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            for _ in 0..<4 { _ = try await Self.score(engine, user: "u") }
            try await engine.velocity.flush()
            clock.advance(by: 120)
            let later = try await Self.score(engine, user: "u")
            #expect(Self.count(later, "velocity.score_requests.user.1m") == 1)
            #expect(Self.count(later, "velocity.score_requests.user.1h") == 5)
            clock.advance(by: 3 * 86_400)
            #expect(Self.count(try await Self.score(engine, user: "u"), "velocity.score_requests.user.7d") == 6)
            // Aged minute buckets roll up into hours, and no count changes.
            try await engine.velocity.flush()
            #expect(try await engine.velocity.compact(now: clock.now()).movedBuckets > 0)
            #expect(Self.count(try await Self.score(engine, user: "u"), "velocity.score_requests.user.7d") == 7)
            #expect(Self.count(try await Self.score(engine, user: "u"), "velocity.score_requests.user.1h") == 3)
            // Ten days on, hours have rolled into days; 31 days on, the days are gone.
            clock.advance(by: 7 * 86_400)
            try await engine.velocity.flush()
            #expect(try await engine.velocity.compact(now: clock.now()).movedBuckets > 0)
            #expect(Self.count(try await Self.score(engine, user: "u"), "velocity.score_requests.user.30d") == 9)
            clock.advance(by: 31 * 86_400)
            try await engine.velocity.flush()
            #expect(try await engine.velocity.compact(now: clock.now()).deletedBuckets > 0)
            #expect(Self.count(try await Self.score(engine, user: "u"), "velocity.score_requests.user.30d") == 1)
        }
    }

    @Test("a paced rollup in small statements moves every aged bucket and changes no count", arguments: TestStoreBackend.available)
    func pacedRollup(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            // 12 minute buckets for each of 3 users and for their shared IP (48 in all), then 3 hours on: all of them
            // are past the 2 h mark.
            for _ in 0..<12 {
                for user in ["a", "b", "c"] { _ = try await Self.score(engine, user: user) }
                clock.advance(by: 60)
            }
            try await engine.velocity.flush()
            clock.advance(by: 3 * 3_600)
            let before = try await Self.score(engine, user: "a")
            #expect(Self.count(before, "velocity.score_requests.user.7d") == 13)
            try await engine.velocity.flush()
            let result = try await engine.velocity.compact(now: clock.now(), batch: 5, dutyCycle: 0.5)
            #expect(result.movedBuckets == 48, "10 statements of at most 5 buckets, each full one followed by a rest")
            #expect(try await engine.velocity.compact(now: clock.now(), batch: 5, dutyCycle: 0.5).movedBuckets == 0)
            #expect(Self.count(try await Self.score(engine, user: "a"), "velocity.score_requests.user.7d") == 14)
            #expect(Self.count(try await Self.score(engine, user: "b"), "velocity.score_requests.user.7d") == 13)
        }
    }

    @Test("a request without a user id has no per-user velocity (missing, not zero)")
    func missingSubject() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let engine = Self.engine(test.store, clock: ManualClock(Self.start))
            let outcome = try await engine.scorer.score(ScoreRequest(appId: Self.appId))
            #expect(outcome.signals["velocity.score_requests.user.1m"] == .some(nil))
        }
    }

    @Test("subjects are keyed hashes: 32 hex digits, never the raw id, different under another key")
    func keyedHashes() async throws {
        let a = VelocityKeying(secret: Data("key-a-0123456789-0123456789-0123".utf8))
        let b = VelocityKeying(secret: Data("key-b-0123456789-0123456789-0123".utf8))
        let subject = a.subject(.user, "alice@example.com")
        #expect(subject.count == 32 && subject.allSatisfy(\.isHexDigit))
        #expect(!subject.contains("alice"))
        #expect(subject == a.subject(.user, "alice@example.com"))
        #expect(subject != b.subject(.user, "alice@example.com"))
        #expect(subject != a.subject(.ip, "alice@example.com"), "the dimension is part of the hash")
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let recorder = VelocityRecorder(store: test.store, keying: a)
            recorder.record(.assertions, appId: Self.appId, subjects: VelocitySubjects(user: "alice@example.com", ip: try ClientIP("203.0.113.9", field: "ip")), at: Self.start)
            #expect(recorder.backlog.pending == 2, "two subjects, one minute bucket each")
        }
    }

    @Test("the pending map is bounded: past its limit the oldest tenth of the buckets is dropped at once and counted")
    func boundedPending() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let keying = VelocityKeying(secret: Data("k".utf8))
            let recorder = VelocityRecorder(store: test.store, keying: keying, maximumPending: 100)
            // One series, a bucket per minute: minute 100 is the 101st bucket, one over the limit.
            for minute in 0...100 {
                recorder.record(.assertions, appId: Self.appId, subjects: VelocitySubjects(user: "u"), at: Self.start.addingTimeInterval(Double(minute) * 60))
                #expect(recorder.backlog.pending <= 100)
            }
            #expect(recorder.backlog.pending == 90, "101 buckets, down to 90: the excess and a tenth of the limit")
            #expect(recorder.backlog.dropped == 11)
            // What is left are minutes 11...100: a sum from minute 0 counts 90 events, one from minute 11 as many.
            let subject = keying.subject(.user, "u")
            let first = Int64(Self.start.timeIntervalSince1970)
            let sums = try await recorder.sums(appId: Self.appId, [
                VelocitySum(subject: subject, event: VelocityEvent.assertions.rawValue, since: first),
                VelocitySum(subject: subject, event: VelocityEvent.assertions.rawValue, since: first + 11 * 60),
                VelocitySum(subject: subject, event: VelocityEvent.assertions.rawValue, since: first + 12 * 60),
            ])
            #expect(sums == [90, 90, 89])
            // Ten more buckets refill it to the limit without dropping anything.
            for minute in 101...110 {
                recorder.record(.assertions, appId: Self.appId, subjects: VelocitySubjects(user: "u"), at: Self.start.addingTimeInterval(Double(minute) * 60))
            }
            #expect(recorder.backlog.pending == 100 && recorder.backlog.dropped == 11)
        }
    }

    @Test("reads racing flushes never miss nor double a batch", arguments: TestStoreBackend.available)
    func readsRaceFlushes(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let recorded = SharedCount()
            let subjects = VelocitySubjects(user: "racer")
            let reader = VelocitySignals(recorder: engine.velocity)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<200 {
                        engine.velocity.record(.scoreRequests, appId: Self.appId, subjects: subjects, at: clock.now())
                        recorded.increment()
                        try await engine.velocity.flush()
                    }
                }
                group.addTask {
                    for _ in 0..<200 {
                        let before = recorded.value
                        let values = Self.rules.values(now: clock.now().timeIntervalSince1970)
                        let reads = AssemblyPlan(Self.rules.layout).velocity.filter { $0.name == "velocity.score_requests.user.1m" }
                        let wanted = reader.sums(reads, subjects: engine.velocity.keying.hash(subjects), now: clock.now())
                        reader.set(values, wanted, try await engine.velocity.sums(appId: Self.appId, wanted.map(\.sum)))
                        let after = recorded.value
                        guard case .number(let seen)? = values.value(of: "velocity.score_requests.user.1m") else {
                            Issue.record("no value")
                            return
                        }
                        #expect(Int(seen) >= before && Int(seen) <= after, "read \(seen) outside [\(before), \(after)]")
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("window arithmetic: granularity by window length, buckets floored, the oldest partial bucket included, rollups cut at whole coarse buckets")
    func windowArithmetic() {
        #expect(VelocityWindow.granularity(for: 60) == 60)
        #expect(VelocityWindow.granularity(for: 3_600) == 60)
        #expect(VelocityWindow.granularity(for: 7_200) == 3_600)
        #expect(VelocityWindow.granularity(for: 7 * 86_400) == 3_600)
        #expect(VelocityWindow.granularity(for: 30 * 86_400) == 86_400)
        #expect(VelocityWindow.bucket(of: 125, granularity: 60) == 120)
        #expect(VelocityWindow.bucket(of: -1, granularity: 60) == -60)
        #expect(VelocityWindow.since(now: 1_000, window: 60, granularity: 60) == 900)
        let minutes = VelocityWindow.rollups[0], hours = VelocityWindow.rollups[1]
        #expect(VelocityWindow.rollupCutoff(minutes, now: 10 * 3_600 + 1_234) == 8 * 3_600)
        #expect(VelocityWindow.rollupCutoff(hours, now: 20 * 86_400 + 5) == 12 * 86_400)
        // The longest read at each granularity starts after its rollup cutoff: it never meets a coarse bucket.
        let now: Int64 = 1_767_225_600 + 12_345
        #expect(VelocityWindow.since(now: Double(now), window: 3_600, granularity: 60) > VelocityWindow.rollupCutoff(minutes, now: now))
        #expect(VelocityWindow.since(now: Double(now), window: 7 * 86_400, granularity: 3_600) > VelocityWindow.rollupCutoff(hours, now: now))
    }
}

/// A count shared between test tasks.
final class SharedCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
