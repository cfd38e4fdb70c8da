import Foundation
public import Logging
public import AttestGuardStore
public import AttestGuardPostgres
import AttestGuardSQLite
/// The store implementations every conformance test runs against: SQLite, PostgreSQL, and PostgreSQL through
/// PgBouncer in transaction mode (``TestPgBouncer``, the store set to ``PostgresPooler/transaction``).
///
/// PostgreSQL runs as ``TestPostgres`` says: whenever a server is configured, and always under CI; PgBouncer
/// likewise, where it is installed (scripts/test.sh installs it).
public enum TestStoreBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres
    case pgbouncer

    /// The backends to test here: PostgreSQL whenever a URL is configured or CI demands it, and through PgBouncer
    /// too where it is installed.
    public static var available: [TestStoreBackend] {
        [.sqlite] + (TestPostgres.isEnabled ? [.postgres] : []) + (TestPgBouncer.isEnabled ? [.pgbouncer] : [])
    }

    /// Only PostgreSQL (for multi-connection races); empty locally without a database, failing under CI.
    public static var postgresOnly: [TestStoreBackend] {
        TestPostgres.isEnabled ? [.postgres] : []
    }
}

/// A fresh, migrated store of one backend: a temp SQLite file, or a new PostgreSQL database cloned from the migrated
/// template (``TestPostgres/freshMigratedURL(prefix:)``), reached directly or through PgBouncer.
public struct TestStore: Sendable {
    public let store: any RiskStore
    public let backend: TestStoreBackend
    /// Reopens the same database as a new store (a restart); the caller must have closed the previous one.
    public let reopen: @Sendable () async throws -> TestStore
    public let close: @Sendable () async -> Void
    /// Removes what the store was made on, once it is closed and will not be reopened: a SQLite store's temporary file,
    /// with its journal and lock files. ``withTestStore(_:poolSize:_:)`` calls it. A PostgreSQL store's cloned
    /// database stays: dropping one waits for a checkpoint and signals every backend of the server, and dropping each
    /// at its test's end costs about a fifth more PostgreSQL CPU a pass
    /// (Benchmarks/results/2026-12-04-night-checks.md).
    public var discard: @Sendable () async -> Void = {}

    public static let logger: Logger = {
        var logger = Logger(label: "attestguard.tests.store")
        logger.logLevel = .error
        return logger
    }()

    public static func make(_ backend: TestStoreBackend, poolSize: Int = 16) async throws -> TestStore {
        switch backend {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("attestguard-\(UUID().uuidString).sqlite").path
            var test = try await sqlite(path: path)
            test.discard = {
                for file in SQLiteRiskStore.files(at: path) { try? FileManager.default.removeItem(atPath: file) }
            }
            return test
        case .postgres:
            return try await postgres(url: try await TestPostgres.freshMigratedURL(), poolSize: poolSize)
        case .pgbouncer:
            // The database comes migrated (a migration is one long transaction, which through PgBouncer holds one of
            // its server connections throughout: the suite's many stores migrating at once starved each other of
            // connections for minutes). Migrating through PgBouncer has tests of its own (PoolerTests, the server's
            // PgBouncer suite); the store opened here reads the schema version through it.
            let bouncer = try await TestPgBouncer.shared()
            let url = try await bouncer.freshMigratedURL()
            do {
                return try await postgres(url: url, poolSize: poolSize, pooler: .transaction)
            } catch {
                // PgBouncer answers a failed server login with its own error (08P01, server_login_retry); what
                // PostgreSQL said is only in its log, and whether a connection could be opened at all in its console.
                let database = URLComponents(string: url).map { String($0.path.dropFirst()) } ?? ""
                let console = await bouncer.consoleState(database: database)
                throw TestPgBouncer.Failure(
                    description: "\(error)\nPgBouncer's log ends:\n\(bouncer.logTail())\nIts console, for \(database):\n\(console)"
                )
            }
        }
    }

    public static func sqlite(path: String) async throws -> TestStore {
        let store = try await SQLiteRiskStore.open(path: path, logger: logger)
        return TestStore(
            store: store,
            backend: .sqlite,
            reopen: { try await sqlite(path: path) },
            close: { await store.close() }
        )
    }

    /// A store on `url`, migrated; with ``PostgresPooler/transaction`` it is the ``TestStoreBackend/pgbouncer`` backend.
    public static func postgres(url: String, poolSize: Int, pooler: PostgresPooler = .none) async throws -> TestStore {
        var configuration = try PostgresStoreConfiguration(url: url, maximumConnections: poolSize, operationTimeout: TestPostgres.operationTimeout)
        configuration.pooler = pooler
        try configuration.checkPooler()
        let store = PostgresRiskStore(configuration: configuration, logger: logger)
        let runner = Task { try await store.run() }
        do {
            try await store.migrate(at: Date())
        } catch {
            runner.cancel()
            throw error
        }
        return TestStore(
            store: store,
            backend: pooler == .transaction ? .pgbouncer : .postgres,
            reopen: { try await postgres(url: url, poolSize: poolSize, pooler: pooler) },
            close: {
                runner.cancel()
                _ = await runner.result
            }
        )
    }
}

/// Runs `body` with a fresh store of `backend`, then closes it and removes its data (``TestStore/discard``).
public func withTestStore(
    _ backend: TestStoreBackend,
    poolSize: Int = 16,
    _ body: (TestStore) async throws -> Void
) async throws {
    let test = try await TestStore.make(backend, poolSize: poolSize)
    do {
        try await body(test)
    } catch {
        await test.close()
        await test.discard()
        throw error
    }
    await test.close()
    await test.discard()
}
