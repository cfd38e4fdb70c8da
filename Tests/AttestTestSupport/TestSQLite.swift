import Foundation
import Logging
import SQLiteNIO

/// Raw SQL on a SQLite file that no store has open, for files no build of this one would write: a schema one
/// version behind or ahead of this build's.
public enum TestSQLite {
    /// How a test moves a migrated store's schema away from this build's.
    public enum SchemaShift: String, CaseIterable, Sendable, CustomStringConvertible {
        /// The last migration's row is removed: a store this build must migrate first.
        case older
        /// A migration this build does not know is recorded: a store of a newer build.
        case newer

        public var description: String { rawValue }

        var sql: String {
            switch self {
            case .older:
                "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)"
            case .newer:
                "INSERT INTO schema_migrations (version, name, applied_at) SELECT max(version) + 1, 'from_a_newer_build', 0 FROM schema_migrations"
            }
        }
    }

    /// Runs `sql` on the database at `path` through a connection of its own.
    public static func execute(_ sql: String, at path: String) async throws {
        var logger = Logger(label: "attestguard.tests.sqlite")
        logger.logLevel = .critical
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        do {
            _ = try await connection.query(sql)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Moves the schema of the (closed) store at `path` one version away from this build's.
    public static func shiftSchema(at path: String, _ shift: SchemaShift) async throws {
        try await execute(shift.sql, at: path)
    }
}
