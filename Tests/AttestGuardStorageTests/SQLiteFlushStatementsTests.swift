import AttestTestSupport
import AttestVocabulary
import Foundation
import SQLiteNIO
import AttestGuardStore
@testable import AttestGuardSQLite
import Testing

/// The embedded store writes a flush's rows many to a statement (``SQLiteRowStatements``): every row lands, in the
/// order given, and rows that meet the same key within one statement or across two do as one statement a row did.
@Suite("SQLite flushes, many rows to a statement")
struct SQLiteFlushStatementsTests {
    /// More rows than two statements carry.
    static let rowCount = 2 * SQLiteRowStatements.maximumRows + 201

    @Test("rows are split into statements of at most maximumRows, every value bound in row order")
    func statementsAndBinds() {
        let rows: [[SQLiteData]] = (0..<Self.rowCount).map { [.integer($0), .text("r\($0)"), .null] }
        let statements = SQLiteRowStatements("INSERT INTO t (a, b, c) VALUES", rows: rows, width: 3, "ON CONFLICT DO NOTHING").statements
        #expect(statements.map { $0.binds.count / 3 } == [SQLiteRowStatements.maximumRows, SQLiteRowStatements.maximumRows, 201])
        for statement in statements {
            #expect(statement.sql.filter { $0 == "?" }.count == statement.binds.count)
            #expect(statement.sql.hasPrefix("INSERT INTO t (a, b, c) VALUES (?, ?, ?), (?, ?, ?)") && statement.sql.hasSuffix("ON CONFLICT DO NOTHING"))
        }
        #expect(statements.flatMap(\.binds) == rows.flatMap { $0 })
        #expect(SQLiteRowStatements("INSERT INTO t (a) VALUES", rows: [], width: 1).statements.isEmpty)
    }

    @Test("velocity increments of one counter add up within a statement and across statements")
    func velocityAcrossStatements() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            var increments = (0..<Self.rowCount).map { VelocityStoreTests.increment("s\($0)", bucket: 60, count: 1) }
            increments[2] = VelocityStoreTests.increment("s1", bucket: 60, count: 4)
            increments[SQLiteRowStatements.maximumRows + 7] = VelocityStoreTests.increment("s0", bucket: 60, count: 5)
            try await test.store.addVelocity(increments, flush: VelocityFlush(writer: "w", sequence: 3, at: StoreFixtures.now))
            let reading = try await test.store.velocitySums(
                appId: "A.app", ["s0", "s1", "s2", "s\(Self.rowCount - 1)"].map { VelocitySum(subject: $0, event: "assertions", since: 0) }, writer: "w"
            )
            #expect(reading == VelocityReading(totals: [6, 5, 0, 1], flushedSequence: 3))
        }
    }

    @Test("decision log entries keep their order, also between statements")
    func decisionsInOrder() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let entries = (0..<Self.rowCount).map { index in
                var entry = DecisionLogStoreTests.entry(Double(index / 300), user: index % 2 == 0 ? "h-user" : nil)
                entry.requestId = "r\(index)"
                return entry
            }
            try await test.store.appendDecisions(entries)
            let read = try await test.store.decisions(since: StoreFixtures.now, after: nil, limit: Self.rowCount + 10)
            #expect(read.map(\.requestId) == entries.map(\.requestId), "same-instant entries by the order written")
            #expect(read.map(\.userHash) == entries.map(\.userHash))
        }
    }

    @Test("a sighting moves its pair's minute forward only, within a statement and across statements")
    func sightingsForwardOnly() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            func sighting(_ series: String, _ member: String, _ minute: Int64) -> DistinctSighting {
                DistinctSighting(series: Array(series.utf8), member: Array(member.utf8), lastSeen: 60 * minute)
            }
            var sightings = (0..<Self.rowCount).map { sighting("filler", "m\($0)", 1) }
            sightings[10] = sighting("device", "later-first", 3)
            sightings[SQLiteRowStatements.maximumRows + 10] = sighting("device", "later-first", 1)
            sightings[20] = sighting("device", "earlier-first", 1)
            sightings[21] = sighting("device", "earlier-first", 2)
            sightings[2 * SQLiteRowStatements.maximumRows + 1] = sighting("device", "earlier-first", 4)
            try await test.store.addDistinctSightings(sightings)
            let counts = try await test.store.distinctCounts((1...4).map { DistinctCountRead(series: Array("device".utf8), since: 60 * $0) })
            #expect(counts == [2, 2, 2, 1], "later-first stays at minute 3, earlier-first moves to 4")
            #expect(try await test.store.distinctCounts([DistinctCountRead(series: Array("filler".utf8), since: 0)]) == [Int64(DistinctCount.maximum)])
        }
    }

    @Test("key uses of more keys than one statement carries: the known keys are written, a dormant receipt rejoins")
    func keyUsesAcrossStatements() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = test.store
            let dormant = try await DormantReceiptStoreTests.registerRefreshed(store)
            #expect(try await store.parkDormantReceipts(unusedSince: DormantReceiptStoreTests.cutoff, at: DormantReceiptStoreTests.later, limit: 10).parked == 1)
            var uses = (0..<Self.rowCount).map { KeyUse(appId: dormant.appId, keyId: Data("unknown-\($0)".utf8), at: DormantReceiptStoreTests.later) }
            // The flush sorts the uses by key: the dormant key's place among the unknown ones is its random id's.
            uses.append(KeyUse(appId: dormant.appId, keyId: dormant.keyId, at: DormantReceiptStoreTests.later))
            #expect(try await store.recordKeyUse(uses) == 1)
            #expect(try await store.recordKeyUse(uses) == 0)
            #expect(try await store.parkDormantReceipts(unusedSince: DormantReceiptStoreTests.cutoff, at: DormantReceiptStoreTests.later, limit: 10).parked == 0,
                    "the key's last use was written")
        }
    }

    @Test("an update joined to a table of rows looks each row up by its key, at the most rows a statement carries")
    func joinedUpdatesSearchByKey() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let rows = SQLiteRowStatements.maximumJoinedRows
            let uses = (0..<rows).map { _ in KeyUse(appId: StoreFixtures.appId, keyId: StoreFixtures.randomId(), at: StoreFixtures.now) }
            let (lastUsed, awake) = SQLiteRiskStore.keyUseStatements(uses)
            let commits = (0..<rows).map { _ in
                AssertionCommit(claim: StoreFixtures.claim(StoreFixtures.challenge(), key: StoreFixtures.key()), counter: 1, requestContext: "{}")
            }
            let updates = [
                (lastUsed, "app_keys"), (awake, "receipts"),
                (SQLiteRiskStore.claimStatements(commits), "challenges"), (SQLiteRiskStore.advanceStatements(commits), "app_keys"),
            ]
            for (statements, table) in updates {
                #expect(statements.statements.count == 1)
                let statement = try #require(statements.statements.first)
                let plan = try await store.query("EXPLAIN QUERY PLAN " + statement.sql, statement.binds).compactMap { $0.column("detail")?.string }
                #expect(plan.contains { $0.hasPrefix("SEARCH \(table) ") } && !plan.contains { $0.hasPrefix("SCAN \(table)") }, "\(table): \(plan)")
            }
        }
    }
}
