import AttestTestSupport
import Foundation
import Logging
import PostgresNIO
@testable import AttestGuardStore
@testable import AttestGuardPostgres
import Testing
import AttestVocabulary

@Suite("Decision log in the store")
struct DecisionLogStoreTests {
    static let day = 86_400.0

    static func entry(_ offset: TimeInterval, decision: Decision = .allow, user: String? = "h-user") -> DecisionLogEntry {
        DecisionLogEntry(
            appId: "A.app", decidedAt: StoreFixtures.now.addingTimeInterval(offset), endpoint: .score, keyId: nil, userHash: user, ipHash: nil,
            decision: decision, ruleDecision: decision, score: 12.5, ruleSetVersion: "sha256:0011223344556677", fired: "a,b",
            signals: #"{"receipt.risk_metric":3}"#
        )
    }

    @Test("entries come back in time order, page by page, across days, with every field", arguments: StoreBackend.available)
    func appendAndPage(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            // Three days, and several entries at the same instant (pages must not lose or repeat them).
            var entries: [DecisionLogEntry] = []
            for index in 0..<30 {
                let offset = Double(index / 10) * Self.day + Double(index % 3)
                entries.append(Self.entry(offset, decision: index % 2 == 0 ? .allow : .deny))
            }
            entries.append(Self.entry(-Self.day, user: nil))
            try await store.appendDecisions(Array(entries[0..<12]))
            try await store.appendDecisions(Array(entries[12...]))
            var read: [DecisionLogEntry] = []
            var cursor: DecisionLogEntry?
            while true {
                let page = try await store.decisions(since: StoreFixtures.now, after: cursor, limit: 7)
                guard let last = page.last else { break }
                read += page
                cursor = last
            }
            #expect(read.count == 30, "the entry before `since` is left out")
            #expect(read.map(\.decidedAt) == read.map(\.decidedAt).sorted())
            #expect(Set(read.map(\.sequence)).count == 30)
            let first = try #require(read.first)
            #expect(first.score == 12.5 && first.fired == "a,b" && first.signals == #"{"receipt.risk_metric":3}"#)
            #expect(first.userHash == "h-user" && first.keyId == nil && first.ipHash == nil)
            #expect(read.filter { $0.decision == .deny }.count == 15)
        }
    }

    @Test("day partitions take no autovacuum or autoanalyze, also one an older version created", arguments: StoreBackend.postgresOnly)
    func partitionsWithoutAutovacuum(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            // Yesterday's partition as an older version made it: no options.
            let yesterday = DecisionLogPartition.day(of: StoreFixtures.now.addingTimeInterval(-Self.day))
            _ = try await store.client().query(PostgresQuery(unsafeSQL: """
                CREATE TABLE \(DecisionLogPartition.name(yesterday)) PARTITION OF decision_log
                FOR VALUES FROM ('\(DecisionLogPartition.literal(yesterday))') TO ('\(DecisionLogPartition.literal(yesterday.addingTimeInterval(Self.day)))')
                """)).collect()
            try await store.appendDecisions([Self.entry(-Self.day), Self.entry(0)])
            let rows = try await store.client().query("""
                SELECT c.relname, array_to_string(c.reloptions, ','), array_to_string(t.reloptions, ',')
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
                LEFT JOIN pg_class t ON t.oid = c.reltoastrelid
                WHERE p.relname = 'decision_log' AND p.relnamespace = to_regnamespace(current_schema()) ORDER BY 1
                """).collect()
            let options = try rows.map { try $0.decode((String, String?, String?).self) }
            #expect(options.count == 2)
            for (name, table, toast) in options {
                #expect(table == "autovacuum_enabled=false", "\(name)")
                #expect(toast == "autovacuum_enabled=false", "\(name)'s TOAST table")
            }
        }
    }

    @Test("a subject search and a request's lookup read the hash-keyed indexes and find only their app's rows", arguments: StoreBackend.postgresOnly)
    func subjectIndexesInPlans(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var mine = Self.entry(0)
            mine.keyId = "k-1"
            mine.deviceHash = "h-device"
            mine.requestId = "r-1"
            var other = mine
            other.appId = "B.app"
            other.decidedAt = mine.decidedAt.addingTimeInterval(1)
            try await store.appendDecisions([mine, other])

            let subjects: [(DecisionSearch.Subject, column: String)] = [(.key("k-1"), "key_id"), (.userHash("h-user"), "user_hash"), (.deviceHash("h-device"), "device_hash")]
            let searches = subjects.map { subject, column in
                let search = DecisionSearch(
                    appId: "A.app", subject: subject, from: StoreFixtures.now.addingTimeInterval(-Self.day), to: StoreFixtures.now.addingTimeInterval(Self.day),
                    after: nil, limit: 10
                )
                return (search, column)
            }
            var queries = searches.map { search, column in (PostgresRiskStore.searchQuery(search), column) }
            queries.append((PostgresRiskStore.decisionQuery(appId: "A.app", requestId: "r-1"), "request_id"))
            let logger = Logger(label: "test")
            for (query, column) in queries {
                let plan = try await store.client().withConnection { connection in
                    // Tables of two rows are read whole unless sequential scans are off; with them off, the plan shows
                    // whether an index can serve the query at all (else it is still a sequential scan).
                    _ = try await connection.query("BEGIN", logger: logger)
                    _ = try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
                    let lines = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: logger)
                        .collect().map { try $0.decode(String.self) }
                    _ = try await connection.query("ROLLBACK", logger: logger)
                    return lines.joined(separator: "\n")
                }
                let indexConditions = plan.split(separator: "\n").filter { $0.contains("Index Cond:") }
                #expect(!indexConditions.isEmpty && indexConditions.allSatisfy { $0.contains("hashtextextended(\(column),") }, "\(plan)")
                #expect(!plan.contains("Seq Scan"), "\(plan)")
            }

            for (search, column) in searches {
                #expect(try await store.searchDecisions(search).map(\.appId) == ["A.app"], "\(column)")
            }
            #expect(try await store.decision(appId: "A.app", requestId: "r-1")?.decidedAt == mine.decidedAt)
            #expect(try await store.decision(appId: "B.app", requestId: "r-1")?.decidedAt == other.decidedAt)
            #expect(try await store.decision(appId: "A.app", requestId: "r-2") == nil)
        }
    }

    @Test("purging removes what was decided before the cutoff (whole days on PostgreSQL)", arguments: StoreBackend.available)
    func purge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.appendDecisions([Self.entry(-3 * Self.day), Self.entry(-2 * Self.day), Self.entry(0)])
            #expect(try await store.purgeDecisions(before: StoreFixtures.now.addingTimeInterval(-Self.day)) > 0)
            let left = try await store.decisions(since: .distantPast, after: nil, limit: 100)
            #expect(left.map(\.decidedAt) == [StoreFixtures.now])
        }
    }
}
