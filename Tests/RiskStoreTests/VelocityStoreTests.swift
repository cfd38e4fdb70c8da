import AttestTestSupport
import Foundation
import RiskStore
import Testing

@Suite("Velocity counters in the store")
struct VelocityStoreTests {
    static func increment(_ subject: String, _ event: String = "assertions", granularity: Int = 60, bucket: Int64, count: Int64 = 1, app: String = "A.app") -> VelocityIncrement {
        VelocityIncrement(key: .init(appId: app, subject: subject, event: event, granularity: granularity, bucket: bucket), count: count)
    }

    @Test("increments add up per bucket; sums cover buckets from `since` on, per app, subject, event and granularity", arguments: StoreBackend.available)
    func addAndSum(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addVelocity([Self.increment("s1", bucket: 600), Self.increment("s1", bucket: 660, count: 2), Self.increment("s2", bucket: 660)])
            try await store.addVelocity([Self.increment("s1", bucket: 660, count: 3), Self.increment("s1", "failed_verifications", bucket: 660)])
            try await store.addVelocity([Self.increment("s1", granularity: 3_600, bucket: 0, count: 6), Self.increment("s1", bucket: 660, app: "B.app")])
            let sums = try await store.velocitySums(appId: "A.app", [
                VelocitySum(subject: "s1", event: "assertions", granularity: 60, since: 600),
                VelocitySum(subject: "s1", event: "assertions", granularity: 60, since: 660),
                VelocitySum(subject: "s1", event: "assertions", granularity: 60, since: 720),
                VelocitySum(subject: "s2", event: "assertions", granularity: 60, since: 0),
                VelocitySum(subject: "s1", event: "failed_verifications", granularity: 60, since: 0),
                VelocitySum(subject: "s1", event: "assertions", granularity: 3_600, since: 0),
                VelocitySum(subject: "nobody", event: "assertions", granularity: 60, since: 0),
            ])
            #expect(sums == [6, 5, 0, 1, 1, 6, 0])
            #expect(try await store.velocitySums(appId: "A.app", []) == [])
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
            let sums = try await store.velocitySums(appId: "A.app", (0..<4).map { VelocitySum(subject: "s\($0)", event: "assertions", granularity: 60, since: 0) })
            #expect(sums == [400, 400, 400, 400])
        }
    }

    @Test("purging deletes old buckets of one granularity only", arguments: StoreBackend.available)
    func purge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addVelocity([Self.increment("s", bucket: 0), Self.increment("s", bucket: 60), Self.increment("s", granularity: 3_600, bucket: 0)])
            #expect(try await store.purgeVelocity(granularity: 60, before: 60) == 1)
            let sums = try await store.velocitySums(appId: "A.app", [
                VelocitySum(subject: "s", event: "assertions", granularity: 60, since: 0),
                VelocitySum(subject: "s", event: "assertions", granularity: 3_600, since: 0),
            ])
            #expect(sums == [1, 1])
        }
    }

    @Test("a flush record is committed with its counts and read back with the sums; sequences only grow; gone writers are purged", arguments: StoreBackend.available)
    func flushRecords(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let sum = [VelocitySum(subject: "s", event: "assertions", granularity: 60, since: 0)]
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
