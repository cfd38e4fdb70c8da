import Foundation
import Logging
import PostgresNIO
import RiskStore
import Testing

/// The two store implementations every conformance test runs against.
///
/// PostgreSQL tests read the server from `ATTESTGUARD_TEST_DATABASE_URL` (scripts/test.sh starts one). Without
/// it they are left out locally, but with `CI=true` they run and fail: CI must never pass on SQLite alone.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static let databaseURLVariable = "ATTESTGUARD_TEST_DATABASE_URL"

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment[databaseURLVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The backends to test here: PostgreSQL whenever a URL is configured or CI demands it.
    static var available: [StoreBackend] {
        postgresURL != nil || isCI ? [.sqlite, .postgres] : [.sqlite]
    }

    /// Only PostgreSQL (for multi-connection races); empty locally without a database, failing under CI.
    static var postgresOnly: [StoreBackend] {
        postgresURL != nil || isCI ? [.postgres] : []
    }
}

/// A fresh, migrated store of one backend: a temp SQLite file, or a new PostgreSQL schema on the test server.
struct TestStore: Sendable {
    let store: any RiskStore
    let backend: StoreBackend
    /// Reopens the same database as a new store (a restart); the caller must have closed the previous one.
    let reopen: @Sendable () async throws -> TestStore
    let close: @Sendable () async -> Void

    static let logger: Logger = {
        var logger = Logger(label: "attestguard.tests.store")
        logger.logLevel = .error
        return logger
    }()

    static func make(_ backend: StoreBackend, poolSize: Int = 16) async throws -> TestStore {
        switch backend {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("attestguard-\(UUID().uuidString).sqlite").path
            return try await sqlite(path: path)
        case .postgres:
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await PostgresTestServer.createSchema(schema)
            return try await postgres(schema: schema, poolSize: poolSize)
        }
    }

    static func sqlite(path: String) async throws -> TestStore {
        let store = try await SQLiteRiskStore.open(path: path, logger: logger)
        return TestStore(
            store: store,
            backend: .sqlite,
            reopen: { try await sqlite(path: path) },
            close: { await store.close() }
        )
    }

    static func postgres(schema: String, poolSize: Int) async throws -> TestStore {
        let store = try PostgresTestServer.store(schema: schema, poolSize: poolSize)
        let runner = Task { try await store.run() }
        do {
            try await store.migrate(at: Date())
        } catch {
            runner.cancel()
            throw error
        }
        return TestStore(
            store: store,
            backend: .postgres,
            reopen: { try await postgres(schema: schema, poolSize: poolSize) },
            close: {
                runner.cancel()
                _ = await runner.result
            }
        )
    }
}

/// Runs `body` with a fresh store of `backend` and closes it afterwards.
func withTestStore(
    _ backend: StoreBackend,
    poolSize: Int = 16,
    _ body: (TestStore) async throws -> Void
) async throws {
    let test = try await TestStore.make(backend, poolSize: poolSize)
    do {
        try await body(test)
    } catch {
        await test.close()
        throw error
    }
    await test.close()
}

/// The shared PostgreSQL test server: each test gets its own schema through `search_path`.
enum PostgresTestServer {
    struct MissingDatabase: Error, CustomStringConvertible {
        var description: String {
            "\(StoreBackend.databaseURLVariable) is not set: start PostgreSQL with scripts/postgres-start.sh (scripts/test.sh does this)"
        }
    }

    static func configuration(poolSize: Int, schema: String? = nil) throws -> PostgresStoreConfiguration {
        guard let url = StoreBackend.postgresURL else { throw MissingDatabase() }
        var configuration = try PostgresStoreConfiguration(url: url, maximumConnections: poolSize, operationTimeout: .seconds(30))
        if let schema {
            configuration.client.options.additionalStartupParameters = [("search_path", schema)]
        }
        return configuration
    }

    static func store(schema: String, poolSize: Int) throws -> PostgresRiskStore {
        PostgresRiskStore(configuration: try configuration(poolSize: poolSize, schema: schema), logger: TestStore.logger)
    }

    static func createSchema(_ schema: String) async throws {
        let admin = PostgresRiskStore(configuration: try configuration(poolSize: 1), logger: TestStore.logger)
        let runner = Task { try await admin.run() }
        defer { runner.cancel() }
        try await admin.client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
    }
}
