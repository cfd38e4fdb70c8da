import AttestVocabulary
import AttestTestSupport
import Foundation
import SQLiteNIO
import AttestGuardStore
@testable import AttestGuardSQLite
import Testing

/// The embedded store reads a verdict's velocity sums, labels and distinct counts in one statement: the same facts as
/// one read each, whatever mix is asked, and one read each again past what one statement takes.
@Suite("Exact facts in one SQLite statement")
struct SQLiteExactFactsTests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A store holding velocity counters and a flush record, labels of two apps and distinct sightings, and a query
    /// asking for some of each.
    private static func prepared(_ store: SQLiteRiskStore) async throws -> (key: KeyRecord, query: ScoringFactsQuery) {
        let key = try await StoreFixtures.register(StoreFixtures.key(), in: store)
        let increment = { (subject: String, event: String, bucket: Int64, count: Int64) in
            VelocityIncrement(key: .init(appId: key.appId, subject: subject, event: event, granularity: 60, bucket: bucket), count: count)
        }
        try await store.addVelocity(
            [increment("s1", "assertions", 600, 2), increment("s1", "assertions", 660, 3), increment("s2", "scores", 660, 7)],
            flush: VelocityFlush(writer: "w", sequence: 9, at: StoreFixtures.now)
        )
        let keyName = key.keyId.base64EncodedString()
        _ = try await store.storeLabels([
            FraudLabelRecord(appId: key.appId, kind: .user, subject: "u-hash", source: "support", label: .fraud, labelledAt: StoreFixtures.now),
            FraudLabelRecord(appId: key.appId, kind: .key, subject: keyName, source: "chargebacks", label: .fraud, labelledAt: StoreFixtures.now),
            FraudLabelRecord(appId: key.appId, kind: .key, subject: keyName, source: "abuse", label: .legitimate, labelledAt: StoreFixtures.now),
            FraudLabelRecord(appId: StoreFixtures.otherAppId, kind: .user, subject: "u-hash", source: "support", label: .fraud, labelledAt: StoreFixtures.now),
        ])
        try await store.addDistinctSightings((0..<4).map {
            DistinctSighting(series: bytes("device-1"), member: bytes("u\($0)"), lastSeen: 60 * Int64($0))
        })
        var query = ScoringFactsQuery(
            appId: key.appId, keyId: key.keyId,
            velocity: [
                VelocitySum(subject: "s1", event: "assertions", since: 660), VelocitySum(subject: "s2", event: "scores", since: 0),
                VelocitySum(subject: "s1", event: "assertions", since: 0), VelocitySum(subject: "nobody", event: "assertions", since: 0),
            ],
            velocityWriter: "w"
        )
        query.labelSubjects = [LabelLookup(kind: .user, subject: "u-hash"), LabelLookup(kind: .key, subject: keyName), LabelLookup(kind: .device, subject: "none")]
        query.distinct = [
            DistinctCountRead(series: bytes("device-1"), since: 60, excluding: [bytes("u2")]),
            DistinctCountRead(series: bytes("device-1"), since: 0),
            DistinctCountRead(series: bytes("device-2"), since: 0, excluding: [bytes("u0"), bytes("u1")]),
        ]
        return (key, query)
    }

    @Test("every mix of velocity sums, labels and distinct counts reads as it does one read at a time")
    func sameAsSingleReads() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let (_, query) = try await Self.prepared(store)
            let all = try await store.scoringFacts(query)
            #expect(all.velocity == VelocityReading(totals: [3, 7, 5, 0], flushedSequence: 9))
            #expect(all.labels.map(\.source) == ["abuse", "chargebacks", "support"], "by kind, subject, then source; this app's only")
            #expect(all.distinct == [2, 4, 0])
            #expect(all.key?.keyId == query.keyId)
            for mask in 0..<16 {
                var mixed = query
                if mask & 1 == 0 { mixed.velocity = [] }
                if mask & 2 == 0 { mixed.labelSubjects = [] }
                if mask & 4 == 0 { mixed.distinct = [] }
                if mask & 8 == 0 { mixed.keyId = nil }
                #expect(try await store.scoringFacts(mixed) == (try await store.scoringFactsFromSingleReads(mixed)), "parts \(mask)")
                #expect((SQLiteExactFactsStatement(mixed) == nil) == (mask == 0), "a statement whenever the key or an exact part is asked (\(mask))")
            }
        }
    }

    @Test("the key comes from the statement, from the caller when it holds that key, and is nil when there is none")
    func keyReadOrHeld() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let (key, query) = try await Self.prepared(store)
            let other = try await StoreFixtures.register(StoreFixtures.key(userId: "user-2"), in: store)
            var stale = key
            stale.counter = 99
            var unknown = query
            unknown.keyId = StoreFixtures.randomId()
            var keyless = query
            keyless.keyId = nil
            for (asked, held) in [(query, nil), (query, stale), (query, other), (unknown, nil), (unknown, key), (keyless, key)] as [(ScoringFactsQuery, KeyRecord?)] {
                let facts = try await store.scoringFacts(asked, knownKey: held)
                #expect(facts == (try await store.scoringFactsFromSingleReads(asked, knownKey: held)))
                #expect(facts.velocity == VelocityReading(totals: [3, 7, 5, 0], flushedSequence: 9) && facts.distinct == [2, 4, 0])
            }
            #expect(try await store.scoringFacts(query, knownKey: stale).key?.counter == 99, "a held key is not read again")
            let stored = try #require(try await store.key(appId: key.appId, keyId: key.keyId))
            #expect(try await store.scoringFacts(query, knownKey: other).key == stored)
            #expect(try await store.scoringFacts(unknown, knownKey: key).key == nil)
            #expect(try await store.scoringFacts(keyless, knownKey: key).key == nil)
            var onlyKey = ScoringFactsQuery(appId: key.appId, keyId: key.keyId)
            onlyKey.receipt = true
            #expect(SQLiteExactFactsStatement(onlyKey) != nil && SQLiteExactFactsStatement(onlyKey, keyHeld: true) == nil)
            #expect(try await store.scoringFacts(onlyKey) == (try await store.scoringFactsFromSingleReads(onlyKey)))
        }
    }

    @Test("past what one statement takes, each part is read on its own, with the same facts")
    func pastTheBounds() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let (_, query) = try await Self.prepared(store)
            var manyCounts = query
            manyCounts.distinct = (0...SQLiteExactFactsStatement.maximumDistinctCounts).map {
                DistinctCountRead(series: Self.bytes("device-1"), since: 60 * Int64($0 % 4))
            }
            #expect(SQLiteExactFactsStatement(manyCounts) == nil)
            let counted = try await store.scoringFacts(manyCounts)
            #expect(counted.distinct.count == SQLiteExactFactsStatement.maximumDistinctCounts + 1 && counted.distinct.prefix(4) == [4, 3, 2, 1])
            #expect(counted.velocity == VelocityReading(totals: [3, 7, 5, 0], flushedSequence: 9))

            var manySums = query
            manySums.velocity = Array(repeating: VelocitySum(subject: "s1", event: "assertions", since: 0), count: SQLiteRiskStore.sumsPerStatement + 1)
            #expect(SQLiteExactFactsStatement(manySums) == nil)
            let summed = try await store.scoringFacts(manySums)
            #expect(summed.velocity.totals.count == SQLiteRiskStore.sumsPerStatement + 1 && Set(summed.velocity.totals) == [5])
            #expect(summed.distinct == [2, 4, 0])

            var atTheBound = query
            atTheBound.distinct = Array(manyCounts.distinct.prefix(SQLiteExactFactsStatement.maximumDistinctCounts))
            #expect(SQLiteExactFactsStatement(atTheBound) != nil)
            #expect(try await store.scoringFacts(atTheBound).distinct == Array(counted.distinct.dropLast()))

            var sumsAtTheBound = query
            sumsAtTheBound.velocity = Array(manySums.velocity.dropLast())
            #expect(SQLiteExactFactsStatement(sumsAtTheBound) != nil)
            #expect(try await store.scoringFacts(sumsAtTheBound) == (try await store.scoringFactsFromSingleReads(sumsAtTheBound)))

            // Few parts, but more values than one statement binds: 60 counts excluding 500 members each.
            var manyParameters = query
            manyParameters.distinct = (0..<60).map { index in
                DistinctCountRead(series: Self.bytes("device-1"), since: 0, excluding: (0..<500).map { Self.bytes("x\(index)-\($0)") } + [Self.bytes("u\(index % 4)")])
            }
            #expect(SQLiteExactFactsStatement(manyParameters) == nil)
            let bound = try await store.scoringFacts(manyParameters)
            #expect(bound.distinct == Array(repeating: 3, count: 60))
            #expect(bound == (try await store.scoringFactsFromSingleReads(manyParameters)))
            manyParameters.distinct = Array(manyParameters.distinct.prefix(50))
            #expect(SQLiteExactFactsStatement(manyParameters) != nil, "25,000 values and the query's others fit one statement")
            #expect(try await store.scoringFacts(manyParameters) == (try await store.scoringFactsFromSingleReads(manyParameters)))
        }
    }

    // The limit turns the deadlock that a read on the writing connection would be into a failure, not a hang. It is
    // wide (the whole in-process suite runs in under three minutes): a test's time counts from when the suite starts
    // it, and every test starts at once on two busy cores.
    @Test("a verdict's facts are read beside an open write transaction, from the last commit", .timeLimit(.minutes(10)))
    func readsBesideAnOpenWrite() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let (key, query) = try await Self.prepared(store)
            // The writing connection holds its transaction open, with a counter added and not yet committed, while the
            // facts are read: on one connection the read would wait for the transaction, which waits for the read.
            let during = try await store.transaction { connection in
                _ = try await connection.query(
                    "INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count) VALUES (?1, 's2', 'scores', 60, 720, 100)",
                    [.text(key.appId)]
                )
                return try await store.scoringFacts(query)
            }
            #expect(during.velocity == VelocityReading(totals: [3, 7, 5, 0], flushedSequence: 9), "the uncommitted counter is not read")
            #expect(try await store.scoringFacts(query).velocity == VelocityReading(totals: [3, 107, 5, 0], flushedSequence: 9))
        }
    }
}
