import AttestTestSupport
import AttestGuardStore
import PostgresNIO
@testable import AttestGuardPostgres
import Testing

/// Reading cells by a learnt position (``PostgresColumnLayout``) against reading them by name, on rows PostgreSQL
/// sends: the same values, in any order of reads, when one statement's rows change their columns, and with a name
/// that occurs twice.
@Suite("Reading columns by learnt position")
struct PostgresColumnLayoutTests {
    /// Statement types the tests learn layouts for; each test its own, so that they run in parallel.
    enum Rotating {}
    enum Random {}

    static func rows(_ sql: String, in store: PostgresRiskStore) async throws -> [PostgresRow] {
        try await store.client().query(PostgresQuery(unsafeSQL: sql)).collect()
    }

    @Test("a statement's rows read the same by position as by name, also when their columns move, shrink or repeat", arguments: StoreBackend.postgresOnly)
    func columnsThatMove(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            // Learnt from the first row, then read out of order.
            var row = try #require(try await Self.rows("SELECT 1::int8 AS a, 'x'::text AS b, 2::int8 AS c", in: store).first).makeRandomAccess()
            var read = PostgresRowReader(row, table: "probe", layoutOf: Rotating.self)
            #expect(try read("c", as: Int64.self) == 2 && read("a", as: Int64.self) == 1 && read("b", as: String.self) == "x")
            // The same count, the names moved: each read finds its own column.
            row = try #require(try await Self.rows("SELECT 'y'::text AS b, 3::int8 AS c, 4::int8 AS a", in: store).first).makeRandomAccess()
            read = PostgresRowReader(row, table: "probe", layoutOf: Rotating.self)
            #expect(try read("a", as: Int64.self) == 4 && read("b", as: String.self) == "y" && read("c", as: Int64.self) == 3)
            // Fewer columns: a missing one is a corrupt row, as by name.
            row = try #require(try await Self.rows("SELECT 5::int8 AS a", in: store).first).makeRandomAccess()
            read = PostgresRowReader(row, table: "probe", layoutOf: Rotating.self)
            #expect(try read("a", as: Int64.self) == 5)
            #expect(throws: StoreError.self) { try read("b", as: String.self) }
            // A name twice: its last column, as postgres-nio reads it by name.
            row = try #require(try await Self.rows("SELECT 6::int8 AS a, 7::int8 AS a, 'z'::text AS b", in: store).first).makeRandomAccess()
            read = PostgresRowReader(row, table: "probe", layoutOf: Rotating.self)
            #expect(try read("a", as: Int64.self) == 7 && read("b", as: String.self) == "z")
            #expect(try PostgresRowReader(row, table: "probe")("a", as: Int64.self) == 7)
            // Back to the first layout: found by position again.
            row = try #require(try await Self.rows("SELECT 8::int8 AS a, 'w'::text AS b, 9::int8 AS c", in: store).first).makeRandomAccess()
            let cursor = PostgresColumnCursor(statement: Rotating.self, row: row)
            #expect(try cursor.cell(named: "b")?.decode(String.self) == "w")
            #expect(try cursor.cell(named: "a")?.decode(Int64.self) == 8)
            #expect(cursor.cell(named: "d") == nil)
        }
    }

    @Test("random layouts under one statement, read in random orders, give what reading by name gives", arguments: StoreBackend.postgresOnly)
    func randomLayouts(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var generator = SplitMix64(seed: 0x1A70_0715)
            let pool = ["app_id", "key_id", "counter", "status", "k", "velocity_totals", "registration_challenge_expires_at", "x"]
            for round in 0..<60 {
                // Mostly one layout again and again, as a statement's rows are; now and then another.
                let count = round % 7 == 6 ? Int.random(in: 1...6, using: &generator) : 5
                let names = round % 7 == 6 || round == 0
                    ? (0..<count).map { _ in pool.randomElement(using: &generator)! }
                    : ["app_id", "key_id", "counter", "status", "registration_challenge_expires_at"]
                let columns = names.enumerated().map { "\(round * 10 + $0.offset)::int8 AS \($0.element)" }
                let rows = try await Self.rows("SELECT " + columns.joined(separator: ", "), in: store)
                let row = try #require(rows.first).makeRandomAccess()
                let positioned = PostgresRowReader(row, table: "probe", layoutOf: Random.self)
                let byName = PostgresRowReader(row, table: "probe")
                for name in (pool + names).shuffled(using: &generator) {
                    let expected = try? byName(name, as: Int64.self)
                    #expect((try? positioned(name, as: Int64.self)) == expected, "round \(round): \(names), \(name)")
                }
            }
        }
    }

    @Test("the statements read by position have distinct column names in every shape", arguments: StoreBackend.postgresOnly)
    func positionedStatementsHaveDistinctNames(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "layout"), in: store)
            // Both shapes of each statement: one that reads the daily facts (the receipt) and one that does not.
            for (counter, receipt) in [(Int64(1), true), (2, false)] {
                let challenge = StoreFixtures.challenge(keyId: key.keyId)
                _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
                let entry = AssertionBatchEntry(
                    commit: AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: counter, requestContext: nil),
                    query: ScoringFactsQuery(appId: key.appId, keyId: key.keyId, receipt: receipt)
                )
                _ = try await store.commitBatch([entry], waitingSince: nil)
                _ = try await store.readFacts([ScoringFactsQuery(appId: key.appId, keyId: key.keyId, receipt: receipt)], waitingSince: nil)
            }
            let layouts = PostgresColumnLayout.allLearnt.filter {
                $0.statement.contains("CommitAssertionsStatement") || $0.statement.contains("ScoringFactsBatchStatement")
            }
            // Two statements, two shapes each (other tests may have learnt them first; none is learnt twice).
            #expect(Set(layouts.map(\.statement)).count == 4, "\(layouts.map(\.statement))")
            for layout in layouts {
                #expect(layout.repeated.isEmpty, "\(layout.statement) repeats \(layout.repeated)")
            }
        }
    }
}
