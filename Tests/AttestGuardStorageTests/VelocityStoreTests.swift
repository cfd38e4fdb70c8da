import AttestTestSupport
import Foundation
import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
import Testing

@Suite("Velocity counters in the store")
struct VelocityStoreTests {
    static func increment(_ subject: String, _ event: String = "assertions", granularity: Int = 60, bucket: Int64, count: Int64 = 1, app: String = "A.app") -> VelocityIncrement {
        VelocityIncrement(key: .init(appId: app, subject: subject, event: event, granularity: granularity, bucket: bucket), count: count)
    }

    @Test("increments add up per bucket; sums cover the buckets of every granularity from `since` on, per app, subject and event", arguments: StoreBackend.available)
    func addAndSum(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addVelocity([Self.increment("s1", bucket: 600), Self.increment("s1", bucket: 660, count: 2), Self.increment("s2", bucket: 660)])
            try await store.addVelocity([Self.increment("s1", bucket: 660, count: 3), Self.increment("s1", "failed_verifications", bucket: 660)])
            try await store.addVelocity([Self.increment("s1", granularity: 3_600, bucket: 0, count: 6), Self.increment("s1", bucket: 660, app: "B.app")])
            let sums = try await store.velocitySums(appId: "A.app", [
                VelocitySum(subject: "s1", event: "assertions", since: 600),
                VelocitySum(subject: "s1", event: "assertions", since: 660),
                VelocitySum(subject: "s1", event: "assertions", since: 720),
                VelocitySum(subject: "s2", event: "assertions", since: 0),
                VelocitySum(subject: "s1", event: "failed_verifications", since: 0),
                VelocitySum(subject: "s1", event: "assertions", since: 0),
                VelocitySum(subject: "nobody", event: "assertions", since: 0),
            ])
            #expect(sums == [6, 5, 0, 1, 1, 12, 0], "the hour bucket at 0 counts from since 0 only")
            #expect(try await store.velocitySums(appId: "A.app", []) == [])
        }
    }

    @Test("the series id a flush computes is SQL's velocity_series(), for operators' queries", arguments: StoreBackend.postgresOnly)
    func seriesIdMatchesSQL(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            try await store.addVelocity([Self.increment("sübject", bucket: 60, count: 3, app: "ABCDE12345.com.example.app")])
            let rows = try await store.client().query(
                "SELECT count FROM velocity_buckets WHERE series = velocity_series('ABCDE12345.com.example.app', 'sübject', 'assertions')"
            ).collect()
            #expect(try rows.map { try $0.decode(Int64.self) } == [3])
        }
    }

    @Test("a flush of a thousand buckets commits whole: concurrent readers see all of each or none, concurrent writers never deadlock", arguments: StoreBackend.available)
    func wholeFlushes(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 8) { (test: TestStore) async throws in
            let store = test.store
            let subjects = (0..<1_000).map { "s\($0)" }
            let sums = subjects.map { VelocitySum(subject: $0, event: "assertions", since: 0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<3 {
                    group.addTask {
                        for round in 0..<4 {
                            var batch = subjects.map { Self.increment($0, bucket: 60) }
                            if (worker + round) % 2 == 0 { batch.reverse() }
                            try await store.addVelocity(batch, flush: VelocityFlush(writer: "w\(worker)", sequence: Int64(round + 1), at: Date()))
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<20 {
                        let total = try await store.velocitySums(appId: "A.app", sums).reduce(0, +)
                        #expect(total % 1_000 == 0, "a snapshot holding part of a flush: \(total)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.velocitySums(appId: "A.app", sums) == Array(repeating: 12, count: 1_000))
        }
    }

    @Test("concurrent writers (8 tasks x 50 flushes over shared buckets) lose no increment", arguments: StoreBackend.available)
    func concurrentWriters(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 8) { (test: TestStore) async throws in
            let store = test.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for round in 0..<50 {
                            // Overlapping keys in different orders across workers: the store sorts them.
                            var batch = (0..<4).map { Self.increment("s\($0)", bucket: 60) }
                            if (worker + round) % 2 == 0 { batch.reverse() }
                            try await store.addVelocity(batch)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sums = try await store.velocitySums(appId: "A.app", (0..<4).map { VelocitySum(subject: "s\($0)", event: "assertions", since: 0) })
            #expect(sums == [400, 400, 400, 400])
        }
    }

    @Test("thousands of sums in one call come back in the order asked, with the writer's flush record; none asked, nothing is read", arguments: StoreBackend.available)
    func manySums(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            // Subject k < 50 has one bucket, at minute k % 5, counting k + 1; subjects 50 to 59 have none.
            let increments = (0..<50).map { Self.increment("s\($0)", bucket: Int64($0 % 5) * 60, count: Int64($0 + 1)) }
            try await store.addVelocity(increments, flush: VelocityFlush(writer: "w", sequence: 4, at: Date(timeIntervalSince1970: 1_767_225_600)))
            let asked = (0..<2_500).map { VelocitySum(subject: "s\($0 % 60)", event: "assertions", since: Int64($0 % 7) * 60) }
            let expected: [Int64] = asked.indices.map { index in
                let subject = index % 60
                return subject < 50 && Int64(subject % 5) * 60 >= asked[index].since ? Int64(subject + 1) : 0
            }
            #expect(try await store.velocitySums(appId: "A.app", asked, writer: "w") == VelocityReading(totals: expected, flushedSequence: 4))
            #expect(try await store.velocitySums(appId: "A.app", [], writer: "w") == VelocityReading(totals: [], flushedSequence: 0), "none asked: nothing read")
        }
    }

    static func sums(_ store: any RiskStore, _ subject: String, since: [Int64]) async throws -> [Int64] {
        try await store.velocitySums(appId: "A.app", since.map { VelocitySum(subject: subject, event: "assertions", since: $0) })
    }

    @Test("a rollup moves old fine buckets into the coarse buckets holding them (negative seconds floor), in batches, without changing aligned sums", arguments: StoreBackend.available)
    func rollUp(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addVelocity([
                Self.increment("s", bucket: 0), Self.increment("s", bucket: 60, count: 2), Self.increment("s", bucket: 3_600, count: 4),
                Self.increment("s", bucket: 7_200, count: 8), Self.increment("s", granularity: 3_600, bucket: 0, count: 16),
                Self.increment("t", bucket: -60), Self.increment("s", "failed_verifications", bucket: 0, count: 32),
            ])
            #expect(try await Self.sums(store, "s", since: [0, 60, 3_600]) == [31, 14, 12])
            #expect(try await store.rollUpVelocity(granularity: 60, into: 3_600, before: 3_600, limit: 2) == 2)
            #expect(try await store.rollUpVelocity(granularity: 60, into: 3_600, before: 3_600, limit: 10) == 2)
            #expect(try await store.rollUpVelocity(granularity: 60, into: 3_600, before: 3_600, limit: 10) == 0)
            #expect(try await Self.sums(store, "s", since: [0, 60, 3_600]) == [31, 12, 12], "the minutes at 0 and 60 now count in the hour at 0")
            #expect(try await Self.sums(store, "t", since: [-3_600, -60]) == [1, 0], "-60 rolls into the hour at -3600")
            #expect(try await store.velocitySums(appId: "A.app", [VelocitySum(subject: "s", event: "failed_verifications", since: 0)]) == [32])
            #expect(try await store.rollUpVelocity(granularity: 3_600, into: 86_400, before: 86_400, limit: 10) == 3)
            #expect(try await Self.sums(store, "s", since: [0, 3_600]) == [31, 12], "the minutes at 3600 and 7200 stay minutes")
            #expect(try await store.purgeVelocity(granularity: 86_400, before: 86_400) == 3)
            #expect(try await Self.sums(store, "s", since: [-86_400]) == [12])
        }
    }

    @Test("rollups racing each other and a writer lose and double nothing", arguments: StoreBackend.available)
    func rollupsRace(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 6) { (test: TestStore) async throws in
            let store = test.store
            try await store.addVelocity((0..<300).map { Self.increment("s\($0 % 3)", bucket: Int64($0) * 60) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while try await store.rollUpVelocity(granularity: 60, into: 3_600, before: 18_000, limit: 7) > 0 {}
                    }
                }
                group.addTask {
                    for round in 0..<50 { try await store.addVelocity([Self.increment("s\(round % 3)", bucket: 18_000 + Int64(round) * 60)]) }
                }
                try await group.waitForAll()
            }
            let totals = try await store.velocitySums(appId: "A.app", (0..<3).map { VelocitySum(subject: "s\($0)", event: "assertions", since: 0) })
            #expect(totals.reduce(0, +) == 350)
            #expect(totals == [117, 117, 116])
            #expect(try await Self.sums(store, "s0", since: [18_000]) == [17])
        }
    }

    @Test("a flush record is committed with its counts and read back with the sums; sequences only grow; gone writers are purged", arguments: StoreBackend.available)
    func flushRecords(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let sum = [VelocitySum(subject: "s", event: "assertions", since: 0)]
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w1") == VelocityReading(totals: [0], flushedSequence: 0))
            try await store.addVelocity([Self.increment("s", bucket: 0, count: 2)], flush: VelocityFlush(writer: "w1", sequence: 1, at: day))
            try await store.addVelocity([Self.increment("s", bucket: 0)], flush: VelocityFlush(writer: "w2", sequence: 7, at: day.addingTimeInterval(86_400)))
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w1") == VelocityReading(totals: [3], flushedSequence: 1))
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w2") == VelocityReading(totals: [3], flushedSequence: 7))
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: nil) == VelocityReading(totals: [3], flushedSequence: 0))
            try await store.addVelocity([], flush: VelocityFlush(writer: "w1", sequence: 3, at: day))
            try await store.addVelocity([Self.increment("s", bucket: 0)], flush: VelocityFlush(writer: "w1", sequence: 2, at: day))
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w1") == VelocityReading(totals: [4], flushedSequence: 3), "never moves back")
            #expect(try await store.purgeVelocityFlushes(before: day.addingTimeInterval(3_600)) == 1)
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w1").flushedSequence == 0)
            #expect(try await store.velocitySums(appId: "A.app", sum, writer: "w2").flushedSequence == 7)
        }
    }
}

@Suite("Server processes in the store")
struct ServerProcessStoreTests {
    static func record(_ id: String, seen: Date, version: String = "sha256:aa", started: Date) -> ServerProcessRecord {
        ServerProcessRecord(
            processId: id, host: "host-\(id)", pid: 100, startedAt: started, seenAt: seen, ruleSetVersion: version, shadowVersion: nil,
            rulesRejected: false
        )
    }

    @Test("a process's record is replaced by its next write; lists hold the recently seen, oldest start first; old ones are purged", arguments: StoreBackend.available)
    func records(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let t0 = Date(timeIntervalSince1970: 1_767_225_600)
            try await store.recordServerProcess(Self.record("b", seen: t0, started: t0))
            try await store.recordServerProcess(Self.record("a", seen: t0, started: t0.addingTimeInterval(-60)))
            try await store.recordServerProcess(Self.record("gone", seen: t0.addingTimeInterval(-300), started: t0.addingTimeInterval(-900)))
            var later = Self.record("b", seen: t0.addingTimeInterval(5), version: "sha256:bb", started: t0)
            later.shadowVersion = "sha256:cc"
            later.rulesRejected = true
            try await store.recordServerProcess(later)
            let listed = try await store.serverProcesses(seenSince: t0.addingTimeInterval(-30))
            #expect(listed.map(\.processId) == ["a", "b"])
            #expect(listed.last == later, "replaced whole, the start kept")
            #expect(try await store.purgeServerProcesses(seenBefore: t0.addingTimeInterval(-60)) == 1)
            #expect(try await store.serverProcesses(seenSince: .distantPast).count == 2)
        }
    }
}
