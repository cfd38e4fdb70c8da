public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// An arbitrary constant naming AttestGuard's migration lock (`pg_advisory_xact_lock`), combined with the
    /// schema's name: processes migrating one schema take turns, while stores in other schemas of the same database
    /// (other deployments, or the test suite's many fresh schemas) never wait on each other.
    static let migrationLockId: Int64 = 0x4174_7465_7374_4775

    /// The applied migrations compared with this build's.
    public func schemaStatus() async throws -> SchemaStatus {
        let exists = try await rows("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
        let present = try exists.first.map { try PostgresRowReader($0, table: "pg_catalog")("present", as: Bool.self) } ?? false
        guard present else { return try SchemaStatus(applied: [], known: Migration.postgres) }
        let applied = try await rows("SELECT version FROM schema_migrations")
            .map { Int(try PostgresRowReader($0, table: "schema_migrations")("version", as: Int32.self)) }
        return try SchemaStatus(applied: Set(applied), known: Migration.postgres)
    }

    /// The table ``migrate(at:)`` records applied migrations in, which it creates before it applies any migration.
    /// Package-visible for the tests' migrated template, whose name covers it beside the migrations.
    package static let migrationsTableSQL =
        "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)"

    /// How long ``migrate(at:)`` may run: a migration that rebuilds an index reads the whole table, which on a
    /// month of decision log takes minutes, far past the operation timeout that bounds a request's statements.
    static let migrationTimeout: Duration = .seconds(24 * 3_600)

    /// Applies every pending migration in one transaction under the schema's advisory lock, so that two processes
    /// migrating it at once apply each migration once. Returns the versions applied. Bounded by
    /// ``migrationTimeout``, not the operation timeout.
    @discardableResult
    public func migrate(at now: Date) async throws -> [Int] {
        try await transaction(within: Self.migrationTimeout) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(current_schema(), \(Self.migrationLockId)))", logger: self.logger)
            try await connection.query(PostgresQuery(unsafeSQL: Self.migrationsTableSQL), logger: self.logger)
            let applied = try await connection.query("SELECT version FROM schema_migrations", logger: self.logger).collect()
                .map { Int(try PostgresRowReader($0, table: "schema_migrations")("version", as: Int32.self)) }
            let status = try SchemaStatus(applied: Set(applied), known: Migration.postgres)
            for migration in status.pending {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(Int32(migration.version)), \(migration.name), \(now))",
                    logger: self.logger
                )
            }
            return status.pending.map(\.version)
        }
    }
}
