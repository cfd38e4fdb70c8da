import Crypto
import Foundation
import AttestGuardStore
import AttestGuardPostgres

/// A database on the test PostgreSQL holding this build's schema, migrated once, that fresh test databases are cloned
/// from (``TestPostgres/freshMigratedURL(prefix:)``).
///
/// Migrating a fresh schema for each test is hundreds of DDL statements, and the suite makes hundreds of them: on two
/// cores the catalog work, and the catalog invalidations every DDL statement sends to every backend of the database,
/// were about a fifth of the in-process pass's CPU. A clone (`CREATE DATABASE ... TEMPLATE`) copies the template's
/// files instead, writes no catalog rows but its own, and invalidates nothing another test's backends hold.
///
/// The template's name carries a digest of this build's migrations, so that a database left by another build, on a
/// PostgreSQL kept between runs, is never cloned for this one. It is migrated under a temporary name and renamed once
/// complete: a run stopped halfway leaves no template that looks finished, and two test processes building it at once
/// both end up cloning the one that was renamed first. Once complete, it accepts no connection, so that nothing
/// connected to it can make a clone fail.
enum MigratedTemplate {
    /// The schema the template's tables are in; every clone's URL selects it with `search_path`.
    static let schema = "attestguard"

    /// The template's name, built on first use.
    static func name() async throws -> String {
        try await built.value
    }

    private static let built = Task { try await build() }

    /// `attestguard_template_` and the first 16 hex digits of a SHA-256 over the table migrations are recorded in and
    /// every migration's version, name and text.
    static var fingerprintedName: String {
        var text = PostgresRiskStore.migrationsTableSQL + "\u{0}"
        for migration in Migration.postgres {
            text += "\(migration.version)\u{0}\(migration.name)\u{0}\(migration.sql)\u{0}"
        }
        let digest = SHA256.hash(data: Data(text.utf8))
        return "attestguard_template_" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Builds the template, up to three times: a test process has one template, so a build that failed once on a busy
    /// machine would otherwise fail every PostgreSQL test of the process.
    private static func build() async throws -> String {
        var attempt = 1
        while true {
            do {
                return try await buildOnce()
            } catch where attempt < 3 {
                // Said on stderr, so that a build that only passed when tried again is seen in the test log.
                FileHandle.standardError.write(Data("MigratedTemplate: building the template failed (attempt \(attempt) of 3): \(String(reflecting: error))\n".utf8))
                attempt += 1
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    private static func buildOnce() async throws -> String {
        let name = fingerprintedName
        if try await exists(name) { return name }
        let building = name + "_" + UUID().uuidString.prefix(8).lowercased()
        _ = try await TestPostgres.administer("CREATE DATABASE \(building)")
        do {
            _ = try await TestPostgres.administer("CREATE SCHEMA \(schema)", database: building)
            try await TestStore.postgres(url: try TestPostgres.url(database: building, searchPath: schema), poolSize: 1).close()
            // The rename, and every clone later, refuses a database someone is connected to. From here on nothing can
            // connect to the template (a clone copies its files without connecting), and a backend of the migration's
            // connection that outlives the client's close by a moment is ended.
            _ = try await TestPostgres.administer("ALTER DATABASE \(building) WITH ALLOW_CONNECTIONS false")
            try await renameWhenAlone(building, to: name)
        } catch {
            _ = try? await TestPostgres.administer("DROP DATABASE IF EXISTS \(building) WITH (FORCE)")
            // Another test process renamed its copy first: that one is complete. Otherwise this build's own error is the
            // one to report, not a failure to ask.
            if (try? await exists(name)) == true { return name }
            throw error
        }
        return name
    }

    /// Ends the backends still on `database` and renames it. PostgreSQL's rename waits up to 5 s for them to go; a
    /// backend slower than that to exit on a busy machine is ended again, up to three times.
    private static func renameWhenAlone(_ database: String, to name: String) async throws {
        var attempt = 1
        while true {
            _ = try await TestPostgres.administer(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()"
            )
            do {
                _ = try await TestPostgres.administer("ALTER DATABASE \(database) RENAME TO \(name)")
                return
            } catch where attempt < 3 {
                // Another test process renamed its copy first: trying again would only fail the same way.
                if (try? await exists(name)) == true { throw error }
                attempt += 1
            }
        }
    }

    private static func exists(_ name: String) async throws -> Bool {
        let rows = try await TestPostgres.administer("SELECT count(*)::int8 FROM pg_database WHERE datname = '\(name)'")
        return try rows.first?.decode(Int64.self) == 1
    }
}
