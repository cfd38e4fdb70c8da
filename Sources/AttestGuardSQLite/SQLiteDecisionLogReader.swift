public import Foundation
public import Logging
import SQLiteNIO
public import AttestGuardStore

/// A SQLite store's decision log, opened read-only beside the server that holds the file, for
/// `attestguard rules backtest`: it takes no process lock (``SQLiteRiskStore`` keeps that for the one writer),
/// never migrates and never writes, and it refuses a missing file (``StoreError/Code/notFound``, nothing is
/// created) and a schema other than this build's (``StoreError/Code/schemaOutdated``,
/// ``StoreError/Code/schemaTooNew``).
///
/// The store runs in WAL mode, so the server keeps writing while this reads: each page is one statement and
/// holds its snapshot only for that statement.
public final class SQLiteDecisionLogReader: DecisionLogReader {
    private let connection: SQLiteConnection
    public let path: String
    /// The store's schema: this build's, or the reader would not have opened.
    public let schemaVersion: Int

    private init(connection: SQLiteConnection, path: String, schemaVersion: Int) {
        self.connection = connection
        self.path = path
        self.schemaVersion = schemaVersion
    }

    /// Opens the existing database at `path` read-only and checks its schema.
    public static func open(path: String, logger: Logger) async throws -> SQLiteDecisionLogReader {
        let (connection, version) = try await openReadOnly(path: path, logger: logger)
        return SQLiteDecisionLogReader(connection: connection, path: path, schemaVersion: version)
    }

    /// A read-only connection to the existing database at `path` whose schema is this build's, and that version:
    /// what every reader beside a running server opens (this one, and ``SQLiteRiskStore/openReadOnly(path:logger:)``).
    static func openReadOnly(path: String, logger: Logger) async throws -> (SQLiteConnection, Int) {
        guard FileManager.default.fileExists(atPath: path) else { throw missing(path) }
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: SQLiteFileURI.readOnly(path: path)), logger: logger)
        } catch {
            // mode=ro never creates the file: one removed since the check above fails here.
            guard FileManager.default.fileExists(atPath: path) else { throw missing(path) }
            throw StoreError(.invalidConfiguration, "cannot open SQLite database \(path) read-only: \(error)")
        }
        do {
            return (connection, try await currentSchema(of: connection, path: path))
        } catch {
            try? await connection.close()
            throw error
        }
    }

    public func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry] {
        try await connection.query(SQLiteDecisionPage.sql, SQLiteDecisionPage.binds(since: since, after: cursor, limit: limit))
            .map(DecisionLogEntry.init(sqlite:))
    }

    /// Runs one read on the connection.
    func rows(_ sql: String, _ binds: [SQLiteData]) async throws -> [SQLiteRow] {
        try await connection.query(sql, binds)
    }

    /// Closes the connection.
    public func close() async {
        try? await connection.close()
    }

    /// The applied schema version when it is this build's; reads `schema_migrations` without creating it.
    private static func currentSchema(of connection: SQLiteConnection, path: String) async throws -> Int {
        let applied: Set<Int>
        do {
            let table = try await connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
            let rows = table.isEmpty ? [] : try await connection.query("SELECT version FROM schema_migrations")
            applied = Set(try rows.map { try SQLiteRowReader(row: $0, table: "schema_migrations").integer("version") }.map { Int($0) })
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.invalidConfiguration, "cannot read the schema of SQLite database \(path): \(error)")
        }
        let known = Migration.sqlite.map(\.version).max() ?? 0
        let version = applied.max() ?? 0
        if !applied.isSubset(of: Migration.sqlite.map(\.version)) {
            throw StoreError(
                .schemaTooNew,
                "the SQLite store \(path) is at schema \(version), this binary knows up to \(known): this binary is older than the store; read it with the binary the server runs"
            )
        }
        if applied.count < Migration.sqlite.count {
            throw StoreError(
                .schemaOutdated,
                "the SQLite store \(path) is at schema \(version), this binary needs \(known): run `attestguard migrate` (a reader never migrates)"
            )
        }
        return version
    }

    private static func missing(_ path: String) -> StoreError {
        StoreError(.notFound, "no SQLite store at \(path): a reader opens an existing store and never creates one (check database.sqlitePath)")
    }
}
