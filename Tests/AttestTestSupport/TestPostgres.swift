import Foundation
import Logging
import PostgresNIO
import AttestGuardStorage

/// The PostgreSQL server tests share (scripts/test.sh starts one and exports its URL). Each test works in a
/// schema of its own, selected with the URL's `search_path`. Without a URL, PostgreSQL tests are left out
/// locally; with `CI=true` they run and fail: CI must never pass on SQLite alone.
public enum TestPostgres {
    public static let urlVariable = "ATTESTGUARD_TEST_DATABASE_URL"

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

    /// Creates a new, empty schema and returns a URL whose connections use it.
    public static func freshSchemaURL(prefix: String = "t") async throws -> String {
        let base = try requiredURL()
        let schema = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var logger = Logger(label: "attestguard.tests.postgres")
        logger.logLevel = .critical
        let admin = PostgresRiskStore(configuration: try PostgresStoreConfiguration(url: base, maximumConnections: 1), logger: logger)
        let runner = Task { try await admin.run() }
        defer { runner.cancel() }
        try await admin.client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
        return base + (base.contains("?") ? "&" : "?") + "search_path=\(schema)"
    }
}
