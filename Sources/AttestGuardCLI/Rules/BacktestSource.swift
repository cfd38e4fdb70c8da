import AttestGuardRuntime
import AttestGuardStore
import AttestGuardSQLite
import Foundation
import Logging
import ServiceLifecycle

/// The decision log `attestguard rules backtest` replays, opened for reading beside a running server: a SQLite
/// store read-only (``SQLiteDecisionLogReader``: no process lock, no migration, no write, so `serve` keeps the
/// file and keeps writing), PostgreSQL through a cold pool as the server opens it.
struct BacktestSource: Sendable {
    let log: any DecisionLogReader
    /// The fraud labels the log's decisions are measured against (`--labels`).
    let labels: any LabelReader
    /// What must run while the log is read (PostgreSQL's pool).
    let services: [any Service]
    /// Throws unless the store's schema is this build's (SQLite's reader checked it when it opened).
    let checkSchema: @Sendable () async throws -> Void
    let close: @Sendable () async -> Void

    static func open(_ database: ServerConfiguration.Database, clock: @escaping @Sendable () -> Date, logger: Logger) async throws -> BacktestSource {
        switch database {
        case .sqlite(let path):
            let reader = try await SQLiteDecisionLogReader.open(path: path, logger: logger)
            return BacktestSource(log: reader, labels: reader, services: [], checkSchema: {}, close: { await reader.close() })
        case .postgres:
            let store = try await OpenedStore.open(database.coldPool, clock: clock, logger: logger)
            return BacktestSource(
                log: store.store, labels: store.store, services: store.services, checkSchema: { _ = try await store.schemaVersion() }, close: store.close
            )
        }
    }
}
