import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("Distinct count sightings in the store")
struct DistinctCountStoreTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func sighting(_ series: String, _ member: String, at minute: Int64) -> DistinctSighting {
        DistinctSighting(series: bytes(series), member: bytes(member), lastSeen: minute)
    }

    @Test("a count is the members of one series seen since the window's start, less the excluded; a sighting never moves back", arguments: StoreBackend.available)
    func counts(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addDistinctSightings([
                Self.sighting("device-1", "u1", at: 60), Self.sighting("device-1", "u2", at: 120), Self.sighting("device-1", "u3", at: 180),
                Self.sighting("device-2", "u1", at: 180),
            ])
            // u1 seen later (moves forward), u3 reported late with an older minute (stays).
            try await store.addDistinctSightings([Self.sighting("device-1", "u1", at: 240), Self.sighting("device-1", "u3", at: 60)])
            let reads = [
                DistinctCountRead(series: Self.bytes("device-1"), since: 0),
                DistinctCountRead(series: Self.bytes("device-1"), since: 180),
                DistinctCountRead(series: Self.bytes("device-1"), since: 181),
                DistinctCountRead(series: Self.bytes("device-1"), since: 0, excluding: [Self.bytes("u1"), Self.bytes("nobody")]),
                DistinctCountRead(series: Self.bytes("device-2"), since: 0, excluding: [Self.bytes("u1")]),
                DistinctCountRead(series: Self.bytes("device-3"), since: 0),
            ]
            #expect(try await store.distinctCounts(reads) == [3, 2, 1, 2, 0, 0])
            #expect(try await store.distinctCounts([]) == [])
        }
    }

    @Test("a count stops at DistinctCount.maximum", arguments: StoreBackend.available)
    func bounded(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let members = (0..<(DistinctCount.maximum + 5)).map { Self.sighting("carrier-ip", "u\($0)", at: 60) }
            try await test.store.addDistinctSightings(members)
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: Self.bytes("carrier-ip"), since: 0)]) == [Int64(DistinctCount.maximum)])
        }
    }

    @Test("verdicts' reads batched together each get their own counts and exclusions, alone or beside other facts", arguments: StoreBackend.available)
    func batchedReads(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.addDistinctSightings((0..<8).flatMap { device in
                (0...device).map { Self.sighting("device-\(device)", "u\($0)", at: 60) }
            })
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: store)
            // Forty concurrent verdicts (batched into shared statements on PostgreSQL), each reading two counts and
            // excluding a member of the first.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let device = index % 8
                        var query = ScoringFactsQuery(appId: key.appId, keyId: index % 2 == 0 ? key.keyId : nil)
                        query.distinct = [
                            DistinctCountRead(series: Self.bytes("device-\(device)"), since: 0, excluding: [Self.bytes("u0")]),
                            DistinctCountRead(series: Self.bytes("device-\((device + 1) % 8)"), since: 0),
                        ]
                        let facts = try await store.scoringFacts(query)
                        #expect(facts.distinct == [Int64(device), Int64((device + 1) % 8 + 1)], "verdict \(index)")
                        #expect((facts.key != nil) == (index % 2 == 0))
                    }
                }
                try await group.waitForAll()
            }
            // With an assertion's commit too.
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
            var asked = ScoringFactsQuery(appId: key.appId, keyId: key.keyId)
            asked.distinct = [DistinctCountRead(series: Self.bytes("device-7"), since: 0, excluding: [Self.bytes("u7"), Self.bytes("u6")])]
            let (outcome, facts) = try await store.commitAssertion(
                AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 1, requestContext: nil), readingFacts: asked
            )
            #expect(outcome == .committed(previousCounter: 0))
            #expect(facts?.distinct == [6])
        }
    }

    @Test("concurrent writers over shared rows in any order neither deadlock nor move a sighting back", arguments: StoreBackend.available)
    func concurrentWriters(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 8) { (test: TestStore) async throws in
            let store = test.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        for round in 0..<10 {
                            var batch = (0..<200).map { Self.sighting("s\($0 % 20)", "m\($0)", at: Int64(60 * (round + 1))) }
                            if (worker + round) % 2 == 0 { batch.reverse() }
                            try await store.addDistinctSightings(batch)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let reads = (0..<20).map { DistinctCountRead(series: Self.bytes("s\($0)"), since: 600) }
            #expect(try await store.distinctCounts(reads) == Array(repeating: 10, count: 20))
        }
    }

    @Test("a purge deletes the expired sightings of its slice of series ids only", arguments: StoreBackend.available)
    func purgeSlices(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let low: [UInt8] = [0x05, 1], middle: [UInt8] = [0x10, 0], high: [UInt8] = [0xff, 9]
            try await store.addDistinctSightings([
                DistinctSighting(series: low, member: [1], lastSeen: 60), DistinctSighting(series: low, member: [2], lastSeen: 6_000),
                DistinctSighting(series: middle, member: [1], lastSeen: 60), DistinctSighting(series: high, member: [1], lastSeen: 60),
            ])
            #expect(try await store.purgeDistinctSightings(before: 600, seriesFirstBytes: 0x00...0x0f) == 1)
            #expect(try await store.purgeDistinctSightings(before: 600, seriesFirstBytes: 0x00...0x0f) == 0)
            #expect(try await store.purgeDistinctSightings(before: 600, seriesFirstBytes: 0xf0...0xff) == 1)
            let left = try await store.distinctCounts([low, middle, high].map { DistinctCountRead(series: $0, since: 0) })
            #expect(left == [1, 1, 0])
        }
    }
}
