import Foundation
public import Logging
public import AttestGuardStorage

/// The two store implementations every conformance test runs against.
///
/// PostgreSQL runs as ``TestPostgres`` says: whenever a server is configured, and always under CI.
public enum TestStoreBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The backends to test here: PostgreSQL whenever a URL is configured or CI demands it.
    public static var available: [TestStoreBackend] {
        TestPostgres.isEnabled ? [.sqlite, .postgres] : [.sqlite]
    }

    /// Only PostgreSQL (for multi-connection races); empty locally without a database, failing under CI.
    public static var postgresOnly: [TestStoreBackend] {
        TestPostgres.isEnabled ? [.postgres] : []
    }
}

/// A fresh, migrated store of one backend: a temp SQLite file, or a new PostgreSQL schema on the test server.
public struct TestStore: Sendable {
    public let store: any RiskStore
    public let backend: TestStoreBackend
    /// Reopens the same database as a new store (a restart); the caller must have closed the previous one.
    public let reopen: @Sendable () async throws -> TestStore
    public let close: @Sendable () async -> Void

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
            return try await sqlite(path: path)
        case .postgres:
            return try await postgres(url: try await TestPostgres.freshSchemaURL(), poolSize: poolSize)
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

    public static func postgres(url: String, poolSize: Int) async throws -> TestStore {
        let configuration = try PostgresStoreConfiguration(url: url, maximumConnections: poolSize, operationTimeout: .seconds(30))
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
            backend: .postgres,
            reopen: { try await postgres(url: url, poolSize: poolSize) },
            close: {
                runner.cancel()
                _ = await runner.result
            }
        )
    }
}

/// Runs `body` with a fresh store of `backend` and closes it afterwards.
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
        throw error
    }
    await test.close()
}
