public import Foundation
public import Logging
public import AttestGuardStore
import AttestGuardPostgres
import AttestGuardSQLite
public import ServiceLifecycle

/// The store a server runs on, with what the server needs around it: the services to run (PostgreSQL's pool),
/// a readiness probe reporting the schema version, and a way to close it.
public struct OpenedStore: Sendable {
    public enum Kind: String, Sendable {
        case postgresql
        case sqlite
    }

    public let store: any RiskStore
    public let kind: Kind
    public let services: [any Service]
    /// The applied schema version; throws if the store is unreachable or the schema is not this build's.
    public let schemaVersion: @Sendable () async throws -> Int
    /// Applies pending migrations; returns the versions applied.
    public let migrate: @Sendable () async throws -> [Int]
    public let close: @Sendable () async -> Void
    /// The versions applied when the store was opened: SQLite migrates at opening (every version for a new file);
    /// PostgreSQL never does.
    public var migratedAtOpening: [Int] = []

    /// Opens the configured store for reading beside a running server: SQLite read-only (no lock, no migration; its
    /// schema checked at opening), PostgreSQL as ``open(_:clock:logger:)`` does (pass a cold pool).
    public static func openForReading(_ database: ServerConfiguration.Database, clock: @escaping @Sendable () -> Date, logger: Logger) async throws -> OpenedStore {
        guard case .sqlite(let path) = database else { return try await open(database, clock: clock, logger: logger) }
        let store = try await SQLiteRiskStore.openReadOnly(path: path, logger: logger)
        let version = Migration.sqlite.map(\.version).max() ?? 0
        return OpenedStore(
            store: store, kind: .sqlite, services: [], schemaVersion: { version },
            migrate: { throw StoreError(.invalidConfiguration, "a store opened for reading is never migrated") },
            close: { await store.close() }
        )
    }

    /// Opens the configured store. SQLite is opened (and migrated) now; PostgreSQL's pool starts when its
    /// service runs.
    public static func open(_ database: ServerConfiguration.Database, clock: @escaping @Sendable () -> Date, logger: Logger) async throws -> OpenedStore {
        switch database {
        case .sqlite(let path):
            let (store, migratedAtOpening) = try await SQLiteRiskStore.openReportingMigrations(path: path, logger: logger)
            return OpenedStore(
                store: store,
                kind: .sqlite,
                services: [],
                schemaVersion: {
                    let status = try await store.schemaStatus()
                    try status.requireCurrent()
                    return status.appliedVersion
                },
                migrate: { try await store.migrate() },
                close: { await store.close() },
                migratedAtOpening: migratedAtOpening
            )
        case .postgres(let postgres):
            var configuration = try PostgresStoreConfiguration(
                url: postgres.url,
                maximumConnections: postgres.poolSize,
                minimumConnections: postgres.minimumConnections,
                keepAlive: postgres.keepAlive,
                operationTimeout: postgres.timeout
            )
            configuration.pooler = postgres.pooler
            configuration.batchSize = postgres.batchSize
            configuration.batchesInFlight = postgres.batchesInFlight
            try configuration.checkPooler()
            var replica = try postgres.readURL.map { url in
                try PostgresStoreConfiguration(
                    url: url, maximumConnections: postgres.readPoolSize, minimumConnections: 0, keepAlive: postgres.keepAlive,
                    operationTimeout: postgres.timeout, defaultTarget: .any, allowedTargets: PostgresTargetSession.allCases
                )
            }
            replica?.pooler = postgres.pooler
            try replica?.checkPooler()
            let store = PostgresRiskStore(configuration: configuration, replica: replica, replicaMaximumLag: postgres.readMaximumLag, logger: logger)
            return OpenedStore(
                store: store,
                kind: .postgresql,
                services: [store],
                schemaVersion: {
                    let status = try await store.schemaStatus()
                    try status.requireCurrent()
                    return status.appliedVersion
                },
                migrate: { try await store.migrate(at: clock()) },
                close: {}
            )
        }
    }
}
