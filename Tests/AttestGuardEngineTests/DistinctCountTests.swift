import AttestVocabulary
@testable import AttestGuardEngine
import AttestTestSupport
import Crypto
import Foundation
import RiskRules
import AttestGuardStore
import Synchronization
import Testing

@Suite("Distinct counts")
struct DistinctCountTests {
    static let appId = "ABCDE12345.com.example.attestguard"
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// Users per device over 1 minute, a day and 30 days, devices per user over a week, keys per IP over 30 days.
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            rules:
              - id: shared-device
                when: distinct.users.device.24h >= 3
                score: 50
                reason: "{distinct.users.device.24h} users on this device in a day, {distinct.users.device.1m} in a minute"
              - id: roaming-user
                when: distinct.devices.user.7d > 5
                score: 1
              - id: busy-ip
                when: distinct.keys.ip.30d > 100
                score: 1
              - id: busy-device
                when: distinct.users.device.30d > 100
                score: 1
            """
        do { return try RuleSetLoader.compile(documents: [("d.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func engine(_ store: any RiskStore, clock: ManualClock) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development])]), settings: EngineSettings(),
            clock: clock, rules: RuleSetHolder(rules)
        )
    }

    static func score(_ engine: Engine, user: String?, device: String?, ip: String = "203.0.113.9") async throws -> RiskScorer.Outcome {
        try await engine.scorer.score(ScoreRequest(
            appId: appId, userId: try user.map { try Identifier($0, field: "userId") }, deviceId: try device.map { try Identifier($0, field: "deviceId") },
            ip: try ClientIP(ip, field: "ip")
        ))
    }

    static func count(_ outcome: RiskScorer.Outcome, _ name: String) -> Double? {
        if case .number(let value)?? = outcome.signals[name] { return value }
        return nil
    }

    @Test("a series id is the first 16 bytes of SHA-256 over the app, the count's names and the subject, NUL-joined: the ids stored before stay valid")
    func seriesIdOfJoinedText() throws {
        let count = try #require(DistinctCount(counted: .user, per: .device))
        for (app, subject) in [(Self.appId, "0123abcd"), ("", ""), ("B.app", "sübject")] {
            let joined = "\(app)\u{0}\(count.per.rawValue)\u{0}\(count.counted.rawValue)\u{0}\(subject)"
            let expected = Array(SHA256.hash(data: Array(joined.utf8)).prefix(16))
            let series = DistinctSeries(appId: app, count: count, subject: subject)
            #expect(series.digest == expected)
            #expect(series.id == expected)
            #expect(series.id == expected, "the memo's id")
        }
    }

    @Test("a device's users count once each, the request's own included, before and after a flush", arguments: TestStoreBackend.available)
    func usersPerDevice(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let first = try await Self.score(engine, user: "u1", device: "d1")
            #expect(Self.count(first, "distinct.users.device.24h") == 1, "the request's own user")
            _ = try await Self.score(engine, user: "u1", device: "d1")
            #expect(Self.count(try await Self.score(engine, user: "u2", device: "d1"), "distinct.users.device.24h") == 2)
            try await engine.distinct.flush()
            #expect(engine.distinct.backlog.pending == 0)
            // u2 is in the store now and is this request's own user: counted once.
            #expect(Self.count(try await Self.score(engine, user: "u2", device: "d1"), "distinct.users.device.24h") == 2)
            let third = try await Self.score(engine, user: "u3", device: "d1")
            #expect(Self.count(third, "distinct.users.device.24h") == 3)
            #expect(third.evaluation.fired.map(\.id) == ["shared-device"])
            #expect(third.evaluation.fired.first?.reason == "3 users on this device in a day, 3 in a minute")
            // Another device, and the other direction.
            #expect(Self.count(try await Self.score(engine, user: "u1", device: "d2"), "distinct.users.device.24h") == 1)
            #expect(Self.count(try await Self.score(engine, user: "u1", device: "d3"), "distinct.devices.user.7d") == 3)
        }
    }

    @Test("windows slide with the clock, to the minute; sightings past 30 days are purged slice by slice", arguments: TestStoreBackend.available)
    func windows(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            for user in ["a", "b", "c"] { _ = try await Self.score(engine, user: user, device: "d") }
            try await engine.distinct.flush()
            clock.advance(by: 120)
            let later = try await Self.score(engine, user: "e", device: "d")
            #expect(Self.count(later, "distinct.users.device.1m") == 1)
            #expect(Self.count(later, "distinct.users.device.24h") == 4)
            // Seen again, `a` moves into the last minute.
            #expect(Self.count(try await Self.score(engine, user: "a", device: "d"), "distinct.users.device.1m") == 2)
            try await engine.distinct.flush()
            clock.advance(by: 86_400 + 60)
            #expect(Self.count(try await Self.score(engine, user: "f", device: "d"), "distinct.users.device.24h") == 1)
            try await engine.distinct.flush()
            clock.advance(by: 31 * 86_400)
            var purged = 0
            for _ in 0..<DistinctRecorder.purgeSlices { purged += try await engine.distinct.purge(now: clock.now()) }
            #expect(purged > 0, "every sighting is past the longest window")
            #expect(try await engine.distinct.purge(now: clock.now()) == 0)
            let series = DistinctSeries(appId: Self.appId, count: DistinctCount(counted: .user, per: .device)!, subject: engine.velocity.keying.subject(.device, "d"))
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: series.id, since: 0)]) == [0])
        }
    }

    @Test("two server processes sharing the store see each other's sightings after a flush", arguments: TestStoreBackend.postgresOnly)
    func twoProcesses(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let other = try await test.reopen()
            let clock = ManualClock(Self.start)
            let first = Self.engine(test.store, clock: clock)
            let second = Self.engine(other.store, clock: clock)
            _ = try await Self.score(first, user: "u1", device: "d")
            _ = try await Self.score(second, user: "u2", device: "d")
            #expect(Self.count(try await Self.score(first, user: "u1", device: "d"), "distinct.users.device.24h") == 1)
            try await first.distinct.flush()
            try await second.distinct.flush()
            #expect(Self.count(try await Self.score(first, user: "u3", device: "d"), "distinct.users.device.24h") == 3)
            // u3 is still the first process's own until its next flush.
            #expect(Self.count(try await Self.score(second, user: "u1", device: "d"), "distinct.users.device.24h") == 2)
            try await first.distinct.flush()
            #expect(Self.count(try await Self.score(second, user: "u1", device: "d"), "distinct.users.device.24h") == 3)
            await other.close()
        }
    }

    @Test("a request without the per subject reads missing; without the counted one, counts the others")
    func missingSubjects() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let engine = Self.engine(test.store, clock: ManualClock(Self.start))
            _ = try await Self.score(engine, user: "u1", device: "d")
            let noDevice = try await Self.score(engine, user: "u1", device: nil)
            #expect(noDevice.signals["distinct.users.device.24h"] == .some(nil))
            #expect(Self.count(try await Self.score(engine, user: nil, device: "d"), "distinct.users.device.24h") == 1)
        }
    }

    @Test("a member seen again in the same minute is written once; in the next minute, again")
    func oneWritePerMinute() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            // User, device and IP: six sightings (users per device and per IP, devices per user and per IP, IPs per
            // user and per device).
            _ = try await Self.score(engine, user: "u", device: "d")
            #expect(engine.distinct.backlog.pending == 6)
            try await engine.distinct.flush()
            for _ in 0..<5 { _ = try await Self.score(engine, user: "u", device: "d") }
            #expect(engine.distinct.backlog.pending == 0)
            clock.advance(by: 60)
            _ = try await Self.score(engine, user: "u", device: "d")
            #expect(engine.distinct.backlog.pending == 6)
        }
    }

    @Test("a failed flush keeps its sightings, still counted by this process, for the next one")
    func failedFlush() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let store = RefusingDistinctStore(base: test.store)
            let recorder = DistinctRecorder(store: store, chunkRows: 2)
            let keying = VelocityKeying.publicTestKey
            for user in ["a", "b", "c"] {
                recorder.record(appId: Self.appId, hashed: keying.hash(VelocitySubjects(user: user, device: "d")), at: clock.now())
            }
            #expect(recorder.backlog.pending == 6)
            store.refusing.withLock { $0 = true }
            await #expect(throws: StoreError.self) { try await recorder.flush() }
            #expect(recorder.backlog.pending == 6)
            let series = DistinctSeries(appId: Self.appId, count: DistinctCount(counted: .user, per: .device)!, subject: keying.subject(.device, "d"))
            #expect(recorder.localMembers(of: series, since: 0).count == 3)
            store.refusing.withLock { $0 = false }
            try await recorder.flush()
            #expect(recorder.backlog.pending == 0)
            #expect(recorder.localMembers(of: series, since: 0).isEmpty)
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: series.id, since: 0)]) == [3])
        }
    }

    @Test("a flush spread over some time pauses between its statements and still writes every sighting")
    func spreadFlush() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = RefusingDistinctStore(base: test.store)
            let recorder = DistinctRecorder(store: store, chunkRows: 1)
            let keying = VelocityKeying.publicTestKey
            let users = ["a", "b", "c", "e"]
            for user in users {
                recorder.record(appId: Self.appId, hashed: keying.hash(VelocitySubjects(user: user, device: "d")), at: Self.start)
            }
            let started = ContinuousClock.now
            try await recorder.flush(spreadingOver: .milliseconds(300))
            let statements = store.calls.withLock { $0 }
            #expect(statements > 2)
            #expect(ContinuousClock.now - started >= .milliseconds(300), "\(statements) statements, paused between")
            #expect(recorder.backlog.pending == 0)
            let series = DistinctSeries(appId: Self.appId, count: DistinctCount(counted: .user, per: .device)!, subject: keying.subject(.device, "d"))
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: series.id, since: 0)]) == [Int64(users.count)])
        }
    }

    @Test("a flush that fails after its first statement committed keeps only the rest, and counts each member once")
    func partlyFailedFlush() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = RefusingDistinctStore(base: test.store, refusingFromCall: 2)
            let recorder = DistinctRecorder(store: store, chunkRows: 1)
            let keying = VelocityKeying.publicTestKey
            for user in ["a", "b", "c"] {
                recorder.record(appId: Self.appId, hashed: keying.hash(VelocitySubjects(user: user, device: "d")), at: Self.start)
            }
            await #expect(throws: StoreError.self) { try await recorder.flush() }
            // The first statement committed one series (the device's three users, or one user's device); the rest went
            // back to pending.
            #expect([3, 5].contains(recorder.backlog.pending), "\(recorder.backlog)")
            let users = DistinctSeries(appId: Self.appId, count: DistinctCount(counted: .user, per: .device)!, subject: keying.subject(.device, "d"))
            let local = recorder.localMembers(of: users, since: 0).count
            let stored = try await test.store.distinctCounts([DistinctCountRead(series: users.id, since: 0)])[0]
            #expect(local + Int(stored) == 3, "each of the three users is either written or still this process's")
            store.refusing.withLock { $0 = false }
            try await recorder.flush()
            #expect(recorder.backlog.pending == 0)
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: users.id, since: 0)]) == [3])
        }
    }

    @Test("a count stops at the maximum, with members in the store, this process's own, or both")
    func maximum() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            let keying = engine.velocity.keying
            let users = DistinctSeries(appId: Self.appId, count: DistinctCount(counted: .user, per: .device)!, subject: keying.subject(.device, "d"))
            let minute = DistinctRecorder.minute(of: clock.now())
            try await test.store.addDistinctSightings((0..<(DistinctCount.maximum - 1)).map {
                DistinctSighting(series: users.id, member: DistinctSeries.member(keying.subject(.user, "stored-\($0)")), lastSeen: minute)
            })
            #expect(Self.count(try await Self.score(engine, user: "new-1", device: "d"), "distinct.users.device.24h") == Double(DistinctCount.maximum))
            #expect(Self.count(try await Self.score(engine, user: "new-2", device: "d"), "distinct.users.device.24h") == Double(DistinctCount.maximum))
            // A process that alone holds the maximum (the store down for a while) answers it without asking the store.
            let other = DistinctRecorder(store: RefusingDistinctStore(base: nil))
            for index in 0..<DistinctCount.maximum {
                other.record(appId: Self.appId, hashed: keying.hash(VelocitySubjects(user: "local-\(index)", device: "d")), at: clock.now())
            }
            let read = try #require(AssemblyPlan(Self.rules.layout).distinct.first { $0.name == "distinct.users.device.24h" })
            let reads = DistinctSignals(recorder: other).reads(
                [read], appId: Self.appId,
                subjects: keying.hash(VelocitySubjects(user: "local-0", device: "d")), now: clock.now()
            )
            #expect(reads.count == 1)
            #expect(reads.first?.store == nil)
            #expect(reads.first?.localMembers == DistinctCount.maximum)
        }
    }

    @Test("a sighting exactly 30 days old still counts in a 30-day window and survives the purge; two minutes later it is gone")
    func retentionBoundary() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = Self.engine(test.store, clock: clock)
            _ = try await Self.score(engine, user: "old", device: "d")
            try await engine.distinct.flush()
            clock.advance(by: 30 * 86_400)
            var purged = 0
            for _ in 0..<DistinctRecorder.purgeSlices { purged += try await engine.distinct.purge(now: clock.now()) }
            #expect(purged == 0)
            #expect(Self.count(try await Self.score(engine, user: "new", device: "d"), "distinct.users.device.30d") == 2)
            try await engine.distinct.flush()
            clock.advance(by: 120)
            for _ in 0..<DistinctRecorder.purgeSlices { purged += try await engine.distinct.purge(now: clock.now()) }
            #expect(purged == 4, "the pairs of `old` with the device and the IP; the device and the IP were seen together again")
            #expect(Self.count(try await Self.score(engine, user: "new", device: "d"), "distinct.users.device.30d") == 1)
        }
    }

    @Test("a request repeating subjects seen together this minute records only the pairs it adds")
    func sharedSubjects() throws {
        let recorder = DistinctRecorder(store: RefusingDistinctStore(base: nil))
        let keying = VelocityKeying.publicTestKey
        let ip = try ClientIP("203.0.113.9", field: "ip")
        func record(_ subjects: VelocitySubjects, after seconds: Double) {
            recorder.record(appId: Self.appId, hashed: keying.hash(subjects), at: Self.start.addingTimeInterval(seconds))
        }
        record(VelocitySubjects(user: "u", device: "d"), after: 0)
        #expect(recorder.backlog.pending == 2, "users per device, devices per user")
        record(VelocitySubjects(user: "u", device: "d"), after: 10)
        #expect(recorder.backlog.pending == 2)
        record(VelocitySubjects(user: "u", device: "d", ip: ip), after: 20)
        #expect(recorder.backlog.pending == 6, "the IP's four pairs with the user and the device")
        record(VelocitySubjects(user: "u2", device: "d", ip: ip), after: 30)
        #expect(recorder.backlog.pending == 10, "u2's pairs with the device and the IP, both ways; the device and the IP were seen together")
        record(VelocitySubjects(user: "u", device: "d"), after: 40)
        #expect(recorder.backlog.pending == 10)
        record(VelocitySubjects(user: "u"), after: 50)
        #expect(recorder.backlog.pending == 10, "one subject makes no pair")
        record(VelocitySubjects(user: "u", device: "d"), after: 60)
        #expect(recorder.backlog.pending == 10, "the next minute's pairs replace the pending ones' minute")
    }

    @Test("past its bound the recorder drops the oldest sightings and counts them")
    func bounded() {
        let recorder = DistinctRecorder(store: RefusingDistinctStore(base: nil), maximumPending: 20)
        let keying = VelocityKeying.publicTestKey
        for index in 0..<30 {
            recorder.record(
                appId: Self.appId, hashed: keying.hash(VelocitySubjects(user: "u\(index)", device: "d")),
                at: Self.start.addingTimeInterval(Double(index) * 60)
            )
        }
        let backlog = recorder.backlog
        #expect(backlog.pending <= 20)
        #expect(backlog.pending + backlog.dropped == 60)
    }
}

/// Passes distinct sightings to a base store, or refuses them while told to (from its `refusingFromCall`th write on,
/// when given).
final class RefusingDistinctStore: DistinctCountStore {
    let base: (any DistinctCountStore)?
    let refusing = Mutex(false)
    private let refusingFromCall: Int?
    /// Statements sent, refused or not.
    let calls = Mutex(0)

    init(base: (any DistinctCountStore)?, refusingFromCall: Int? = nil) {
        self.base = base
        self.refusingFromCall = refusingFromCall
        if refusingFromCall != nil { refusing.withLock { $0 = true } }
    }

    func addDistinctSightings(_ sightings: [DistinctSighting]) async throws {
        let call = calls.withLock { calls in
            calls += 1
            return calls
        }
        if refusing.withLock({ $0 }), call >= (refusingFromCall ?? 1) { throw StoreError(.unavailable, "refusing") }
        try await base?.addDistinctSightings(sightings)
    }

    func distinctCounts(_ reads: [DistinctCountRead]) async throws -> [Int64] {
        try await base?.distinctCounts(reads) ?? reads.map { _ in 0 }
    }

    func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int {
        try await base?.purgeDistinctSightings(before: before, seriesFirstBytes: seriesFirstBytes) ?? 0
    }
}
