import Foundation
import Logging
public import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
import Testing

/// The PostgreSQL server tests share (scripts/test.sh starts one and exports its URL). Each test works in a
/// schema of its own, selected with the URL's `search_path`: an empty one in the server's database, or a migrated
/// one in a database cloned for it from a template. Without a URL, PostgreSQL tests are left out
/// locally; with `CI=true` they run and fail: CI must never pass on SQLite alone.
public enum TestPostgres {
    public static let urlVariable = "ATTESTGUARD_TEST_DATABASE_URL"

    /// The deadline of every store the tests open on it, and of the servers they start. Wide on purpose: the suite
    /// starts hundreds of tests at once on two cores, and in its first minutes a transaction can wait over two
    /// minutes for a thread to run its next statement (the store's deadline is enforced: past it the operation
    /// fails, its connection closed); a real hang still ends the test.
    public static let operationTimeout: Duration = .seconds(600)

    /// ``operationTimeout`` as `database.timeoutMilliseconds` reads it, for the servers the tests start.
    public static var operationTimeoutMilliseconds: String {
        String(operationTimeout.components.seconds * 1_000)
    }

    public static var url: String? {
        ProcessInfo.processInfo.environment[urlVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether PostgreSQL tests run here: a URL is configured, or CI demands them.
    public static var isEnabled: Bool {
        url != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "\(TestPostgres.urlVariable) is not set: start PostgreSQL with scripts/postgres-start.sh (scripts/test.sh does this)"
        }
    }

    /// The server's URL, or ``Missing``.
    public static func requiredURL() throws -> String {
        guard let url else { throw Missing() }
        return url
    }

    /// A name no other test has: `prefix`, an underscore and 32 hex digits (a schema, role or database name).
    static func freshName(prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Creates a new, empty schema and returns a URL whose connections use it.
    public static func freshSchemaURL(prefix: String = "t") async throws -> String {
        let base = try requiredURL()
        let schema = freshName(prefix: prefix)
        _ = try await administer("CREATE SCHEMA \(schema)")
        return base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)"
    }

    /// Creates a new database holding this build's schema, cloned from a template migrated once for this build's
    /// migrations (``MigratedTemplate``), and returns a URL whose connections use its schema. For tests that migrate a fresh
    /// schema before anything else; a test of migrating itself takes ``freshSchemaURL(prefix:)``.
    public static func freshMigratedURL(prefix: String = "t") async throws -> String {
        let template = try await MigratedTemplate.name()
        let database = freshName(prefix: prefix)
        _ = try await administer("CREATE DATABASE \(database) TEMPLATE \(template)")
        return try url(database: database, searchPath: MigratedTemplate.schema)
    }

    /// The server's URL with its database replaced by `database`, and `search_path` set when given.
    static func url(database: String, searchPath: String? = nil) throws -> String {
        guard var components = URLComponents(string: try requiredURL()) else { throw Missing() }
        components.path = "/" + database
        if let searchPath {
            components.queryItems = (components.queryItems ?? []).filter { $0.name != "search_path" }
                + [URLQueryItem(name: "search_path", value: searchPath)]
        }
        guard let url = components.string else { throw Missing() }
        return url
    }

    /// Runs `sql` as the server's administrator and returns its rows.
    public static func administer(_ sql: String, database: String? = nil) async throws -> [PostgresRow] {
        var logger = Logger(label: "attestguard.tests.postgres")
        logger.logLevel = .critical
        let url = try database.map { try Self.url(database: $0) } ?? requiredURL()
        let admin = PostgresRiskStore(configuration: try PostgresStoreConfiguration(url: url, maximumConnections: 1, operationTimeout: operationTimeout), logger: logger)
        let runner = Task { try await admin.run() }
        defer { runner.cancel() }
        return try await admin.client().query(PostgresQuery(unsafeSQL: sql)).collect()
    }

    /// A new login role owning a new schema, and a URL that connects as that role to that schema: what the role's
    /// connections send can be told apart in `pg_stat_statements` (by `userid`).
    public static func freshRoleURL(prefix: String = "r") async throws -> (url: String, role: String) {
        let base = try requiredURL()
        let role = freshName(prefix: prefix)
        _ = try await administer("CREATE ROLE \(role) LOGIN")
        _ = try await administer("CREATE SCHEMA \(role) AUTHORIZATION \(role)")
        guard var components = URLComponents(string: base) else { throw Missing() }
        components.user = role
        components.password = nil
        let url = components.string ?? base
        return (url + (url.contains("?") ? "&" : "?") + "search_path=\(role)", role)
    }

    /// Whether the server counts statements (`pg_stat_statements` preloaded; scripts/postgres-start.sh loads it when
    /// the server has it), creating the extension's view when it does.
    public static func countsStatements() async throws -> Bool {
        let loaded = try await administer("SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%'")
        guard try loaded.first?.decode(Bool.self) == true else { return false }
        do {
            _ = try await administer("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        } catch {
            // Two tests creating it at once: one of them loses PostgreSQL's race on the catalog; the other created it.
            let created = try await administer("SELECT count(*)::int8 FROM pg_extension WHERE extname = 'pg_stat_statements'")
            guard try created.first?.decode(Int64.self) == 1 else { throw error }
        }
        return true
    }

    /// Whether a test that counts statements can run: ``countsStatements()``, and under `CI=true` its absence is a
    /// recorded failure rather than a skip (scripts/test.sh preloads the extension).
    public static func countsStatementsOrFailsUnderCI() async throws -> Bool {
        if try await countsStatements() { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("pg_stat_statements is not preloaded") }
        return false
    }

    /// How many times `pg_stat_statements` has evicted entries to make room (`pg_stat_statements_info.dealloc`): a count
    /// of statements taken across an eviction may have lost the evicted entries' calls. Every test schema and role
    /// adds entries of its own (a statement's entry is per role and per table it names).
    public static func statementEvictions() async throws -> Int64 {
        try await administer("SELECT dealloc FROM pg_stat_statements_info").first?.decode(Int64.self) ?? 0
    }

    /// How many statements `role` has run, as `pg_stat_statements` counts them (top-level statements only). With
    /// `excludingWriteBehind`, the server's write-behind batches (velocity counts, the decision log and its
    /// partitions), which run on their own schedule and serve many requests at once, are not counted.
    public static func statementCalls(of role: String, excludingWriteBehind: Bool = false, excludingBackground: Bool = false) async throws -> Int64 {
        let writeBehind = excludingWriteBehind ? """
             AND query NOT ILIKE '%INSERT INTO velocity_buckets%' AND query NOT ILIKE '%INSERT INTO decision_log%'
             AND query NOT ILIKE '%decision_log_%'
            """ : ""
        // What a serving process does on its own schedule, whatever its requests: the heartbeat (every 5 s), the
        // reads of stored policies, ramps, baselines and run-time lists, the challenge purge, the receipt poll. The
        // assertions' commit (its CTE `advancing_key`) may read receipts and baselines too, and always counts.
        let background = excludingBackground ? """
             AND (query ILIKE '%advancing_key%' OR NOT (query ILIKE '%server_processes%'
                  OR query ILIKE '%app_policy_overrides%' OR query ILIKE '%attestation_ramp%' OR query ILIKE '%baseline%'
                  OR query ILIKE '%DELETE FROM challenges%' OR query ILIKE '%receipt%' OR query ILIKE '%managed_list%'))
            """ : ""
        // postgres-nio's keep-alive (`SELECT 1;`, normalised to `SELECT $1`) reaches an idle connection every 30 s,
        // and the store asks its host every second whether it takes writes (`pg_is_in_recovery()`): a measured
        // window can include either.
        let rows = try await administer(
            "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements WHERE userid = '\(role)'::regrole"
                + " AND query <> 'SELECT $1' AND query NOT LIKE '%pg_is_in_recovery()%'" + writeBehind + background
        )
        return try rows.first?.decode(Int64.self) ?? 0
    }
}
