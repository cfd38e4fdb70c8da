import Foundation
import EventLoopConcurrency
public import Logging
import NIOCore
import SQLiteNIO
public import AttestGuardStore

/// The embedded default store: one SQLite file, one connection, one process. A lock file next to the database
/// makes a second process fail with ``StoreError/Code/locked`` instead of sharing it. Transactions run one at a
/// time (`BEGIN IMMEDIATE`), so the conditional statements see no concurrent writer at all. A store opened with
/// ``openReadOnly(path:logger:)`` reads beside the process that holds the file, and every write it tries fails.
public final class SQLiteRiskStore: RiskStore {
    let connection: SQLiteConnection
    let gate = AsyncSerialGate()
    /// Accepted assertions that arrive while a transaction runs share the next one (``commitBatch(_:)``).
    let assertionCommits = GroupCommit<AssertionCommit, ClaimedAssertion>(
        maximumBatch: SQLiteRiskStore.assertionBatchSize, maximumRunning: 1
    )
    /// The most accepted assertions one transaction commits: PostgreSQL's default batch size.
    static let assertionBatchSize = 32
    /// The process lock; none when opened read-only.
    private let lock: ProcessFileLock?
    /// Connections that read the verdicts' facts beside the writing one; none when opened read-only.
    let readers: SQLiteReaders?
    public let path: String

    private init(connection: SQLiteConnection, lock: ProcessFileLock?, path: String, readers: SQLiteReaders? = nil) {
        self.connection = connection
        self.lock = lock
        self.path = path
        self.readers = readers
    }

    /// The process lock's file beside the database at `path`.
    static func lockPath(for path: String) -> String { path + ".lock" }

    /// Every file a store at `path` may leave: the database, SQLite's journal files beside it, and the process lock.
    /// For the tests, which remove their stores' files and read them.
    package static func files(at path: String) -> [String] {
        [path, path + "-wal", path + "-shm", path + "-journal", lockPath(for: path)]
    }

    /// Opens (creating if needed) the database at `path`, takes the process lock and applies pending migrations.
    public static func open(path: String, logger: Logger) async throws -> SQLiteRiskStore {
        try await openReportingMigrations(path: path, logger: logger).store
    }

    /// ``open(path:logger:)``, with the versions the opening applied (every one for a new file), for `migrate` to
    /// say what it did.
    public static func openReportingMigrations(path: String, logger: Logger) async throws -> (store: SQLiteRiskStore, applied: [Int]) {
        let lock = try ProcessFileLock(path: lockPath(for: path))
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw StoreError(.invalidConfiguration, "cannot open SQLite database \(path): \(error)")
        }
        let migrating = SQLiteRiskStore(connection: connection, lock: lock, path: path)
        do {
            for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL"] {
                _ = try await connection.query(pragma)
            }
            let applied = try await migrating.migrate()
            // The readers open on the migrated file (they refuse any other schema than this build's).
            let readers = try await SQLiteReaders.open(path: path, logger: logger)
            return (SQLiteRiskStore(connection: connection, lock: lock, path: path, readers: readers), applied)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Opens the existing database at `path` read-only beside the server that holds it (analysts' commands): no
    /// process lock, no migration, no write (WAL lets the server keep writing). A missing file is
    /// ``StoreError/Code/notFound`` and a schema other than this build's is refused, as
    /// ``SQLiteDecisionLogReader`` does.
    public static func openReadOnly(path: String, logger: Logger) async throws -> SQLiteRiskStore {
        let (connection, _) = try await SQLiteDecisionLogReader.openReadOnly(path: path, logger: logger)
        return SQLiteRiskStore(connection: connection, lock: nil, path: path)
    }

    /// Closes the connection and releases the process lock.
    public func close() async {
        await readers?.close()
        try? await gate.run { try await self.connection.close() }
        lock?.release()
    }

    // MARK: - Schema

    /// The applied migrations compared with this build's.
    public func schemaStatus() async throws -> SchemaStatus {
        try await gate.run {
            _ = try await self.connection.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
            )
            let rows = try await self.connection.query("SELECT version FROM schema_migrations")
            let applied = Set(try rows.map { try SQLiteRowReader(row: $0, table: "schema_migrations").integer("version") }.map { Int($0) })
            return try SchemaStatus(applied: applied, known: Migration.sqlite)
        }
    }

    /// Applies every pending migration, each in its own transaction; returns the versions applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        let status = try await schemaStatus()
        for migration in status.pending {
            try await transaction { connection in
                for statement in migration.statements {
                    _ = try await connection.query(statement)
                }
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                    [.integer(migration.version), .text(migration.name), SQLiteValues.bind(Date())]
                )
            }
        }
        return status.pending.map(\.version)
    }

    // MARK: - Transactions

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`, rolling back if it throws.
    func transaction<Result: Sendable>(_ body: @Sendable (SQLiteConnection) async throws -> Result) async throws -> Result {
        try await gate.run {
            _ = try await self.connection.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(self.connection)
                _ = try await self.connection.query("COMMIT")
                return result
            } catch {
                _ = try? await self.connection.query("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs one statement outside an explicit transaction.
    func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await gate.run { try await self.connection.query(sql, binds) }
    }

    /// Runs one read-only statement on a reader (``SQLiteReaders``), beside the writing connection's statements; on
    /// the writing connection when the store has no readers (opened read-only).
    func read(_ sql: String, _ binds: [SQLiteData]) async throws -> [SQLiteRow] {
        guard let readers else { return try await query(sql, binds) }
        return try await readers.query(sql, binds)
    }
}
