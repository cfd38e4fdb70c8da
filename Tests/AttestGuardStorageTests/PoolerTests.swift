import AttestTestSupport
import Foundation
import AttestGuardStore
import AttestGuardPostgres
import Testing

/// PgBouncer in transaction mode in front of PostgreSQL: the store works through it with ``PostgresPooler/transaction``
/// (the whole conformance suite also runs so, as ``TestStoreBackend/pgbouncer``), and a team that forgets the setting
/// gets `store_unavailable` naming the prepared statement, not a wrong answer.
@Suite("Connection poolers")
struct PoolerTests {
    /// Whether PgBouncer tests run here (``TestPgBouncer/isEnabled``).
    static var enabled: Bool { TestPgBouncer.isEnabled }

    /// Concurrent verdict reads: more at once than the store's pool has connections, whose connections are more than
    /// the PgBouncer server connections of one role (``TestPgBouncer``: 4), so that connections share named statements.
    static let concurrentReads = 96

    /// A migrated store through PgBouncer as a fresh role, with `pooler`, its registered key, and a stop.
    static func storeThroughPgBouncer(pooler: PostgresPooler) async throws -> (store: PostgresRiskStore, key: KeyRecord, stop: @Sendable () async -> Void) {
        let url = try await TestPgBouncer.shared().freshRoleURL(prefix: "p").url
        var configuration = try PostgresStoreConfiguration(url: url, maximumConnections: 16, operationTimeout: TestPostgres.operationTimeout)
        configuration.pooler = pooler
        // Each read its own statement: batched, the 96 reads would share a couple of statements (and connections),
        // and the forgotten setting could go unseen in a run this short.
        configuration.batchSize = 1
        let store = PostgresRiskStore(configuration: configuration, logger: TestStore.logger)
        let runner = Task { try await store.run() }
        try await store.migrate(at: StoreFixtures.now)
        let key = try await StoreFixtures.register(StoreFixtures.key(), in: store)
        return (store, key, { runner.cancel(); _ = await runner.result })
    }

    /// Runs ``concurrentReads`` scoring-facts reads (a named prepared statement with ``PostgresPooler/none``) at once and
    /// returns the errors they threw.
    static func concurrentScoringFacts(_ store: PostgresRiskStore, key: KeyRecord) async -> [any Error] {
        let query = ScoringFactsQuery(appId: key.appId, keyId: key.keyId, receipt: true, metricBaselineAt: nil, supersededKeys: true, deviceCheck: nil)
        return await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<concurrentReads {
                group.addTask {
                    do {
                        let facts = try await store.scoringFacts(query)
                        return facts.key?.keyId == key.keyId ? nil : StoreError(.queryFailed, "the facts miss the key")
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [any Error]()) { errors, error in if let error { errors.append(error) } }
        }
    }

    @Test("a store's failure message can show PgBouncer's console: its database's pool and the administrator's connections", .enabled(if: enabled))
    func consoleState() async throws {
        let bouncer = try await TestPgBouncer.shared()
        let url = try await bouncer.freshMigratedURL(prefix: "c")
        let database = try #require(URLComponents(string: url)).path.dropFirst()
        let test = try await TestStore.postgres(url: url, poolSize: 2, pooler: .transaction)
        try await test.store.checkHealth()
        let console = await bouncer.consoleState(database: String(database))
        await test.close()
        let lines = console.split(separator: "\n")
        // SHOW POOLS' header and the database's pool under it, SHOW DATABASES' header and its entry, the sum.
        #expect(lines.contains { $0.hasPrefix("database|user|cl_active|") }, "\(console)")
        #expect(lines.filter { $0.hasPrefix("\(database)|") }.count == 2, "\(console)")
        // The sum is a count (no bound: PgBouncer opens connections for cancel requests beyond max_user_connections).
        let sum = try #require(lines.last)
        #expect(sum.hasPrefix("the administrator's server connections over all its pools: "), "\(console)")
        #expect(sum.split(separator: " ").dropLast(2).last.flatMap { Int($0) } != nil, "\(console)")
    }

    @Test("with pooler transaction, concurrent reads through PgBouncer in transaction mode all answer", .enabled(if: enabled))
    func transactionPoolerWorks() async throws {
        let (store, key, stop) = try await Self.storeThroughPgBouncer(pooler: .transaction)
        let errors = await Self.concurrentScoringFacts(store, key: key)
        await stop()
        #expect(errors.isEmpty, "\(errors.prefix(3))")
    }

    @Test("the setting forgotten (pooler none behind PgBouncer in transaction mode): store_unavailable naming the prepared statement", .enabled(if: enabled))
    func forgottenSettingIsStoreUnavailable() async throws {
        let (store, key, stop) = try await Self.storeThroughPgBouncer(pooler: .none)
        let errors = await Self.concurrentScoringFacts(store, key: key)
        await stop()
        #expect(!errors.isEmpty, "every read answered although connections shared named statements")
        for error in errors {
            let storeError = try #require(error as? StoreError, "\(error)")
            #expect(storeError.code == .unavailable, "\(storeError)")
            // `prepared statement "attestguard_scoring_facts_batch_v6" does not exist` (26000) or `... already exists` (42P05).
            #expect(storeError.detail.contains(#"prepared statement "attestguard_"#), "\(storeError)")
            #expect(storeError.detail.hasPrefix("PostgreSQL 26000:") || storeError.detail.hasPrefix("PostgreSQL 42P05:"), "\(storeError)")
        }
    }

    @Test("a search_path in the URL is refused with pooler transaction, and kept without a pooler")
    func searchPathRefused() throws {
        var configuration = try PostgresStoreConfiguration(url: "postgres://u@127.0.0.1/d?search_path=s")
        try configuration.checkPooler()
        configuration.pooler = .transaction
        let error = #expect(throws: StoreError.self) { try configuration.checkPooler() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.detail.contains("search_path") == true)
        var plain = try PostgresStoreConfiguration(url: "postgres://u@127.0.0.1/d")
        plain.pooler = .transaction
        try plain.checkPooler()
    }
}
