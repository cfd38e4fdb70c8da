import Foundation
import Synchronization
public import Logging
public import PostgresNIO
public import ServiceLifecycle
import AttestVocabulary

/// The production store: pooled PostgreSQL connections (one pool per event loop, ``LoopAffinePostgresPools``),
/// shared by any number of server processes. Challenge
/// consumption and counter advance are conditional `UPDATE`s in one transaction, so concurrent submissions of
/// one assertion, in one process or many, have exactly one winner.
///
/// The store is a `Service`: run it (or put it in the `ServiceGroup`) before using it.
public final class PostgresRiskStore: RiskStore, Service {
    /// The connection pools; operations lease from the one of the loop they run on.
    public let pools: LoopAffinePostgresPools
    /// The pool for an operation started here: the running loop's, or the next in turn.
    public var client: PostgresClient { pools.current }
    public let configuration: PostgresStoreConfiguration
    let logger: Logger
    /// Decision log day partitions this process has created or found (see `appendDecisions`).
    let knownPartitions = Mutex<Set<String>>([])
    /// Opened when ``run()`` starts the pool. Operations wait for it rather than lease from a pool that is not
    /// running yet: a lease before the pool runs (the auto-migration at startup, `attestguard migrate`) makes
    /// PostgresNIO log a warning ("`PostgresClient.run()` hasn't been called yet").
    let poolStarted = StartSignal()

    public init(configuration: PostgresStoreConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.pools = LoopAffinePostgresPools(configuration: configuration.client, logger: logger)
    }

    /// Runs the connection pools until the task is cancelled or graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            // Opened once every pool has marked itself running, before any has a chance to serve a lease.
            await self.pools.run(onStarted: { self.poolStarted.open() })
        }
    }

    // MARK: - Error mapping and transactions

    /// Runs one store operation under the configured deadline, once the pool runs, mapping driver failures to
    /// ``StoreError``.
    func perform<Result: Sendable>(_ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        do {
            return try await withOperationDeadline(configuration.operationTimeout) {
                try await self.poolStarted.wait()
                return try await operation()
            }
        } catch let error as StoreError {
            throw error
        } catch let signal as RollbackSignal {
            throw signal
        } catch let error as PSQLError where error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? "?"
            let message = error.serverInfo?[.message] ?? "no message"
            throw StoreError(.queryFailed, "PostgreSQL \(state): \(message)")
        } catch {
            throw StoreError(.unavailable, "PostgreSQL is unreachable: \(String(describing: error))")
        }
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on one pooled connection; any error rolls back and is rethrown as is.
    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        let client = self.client
        return try await perform {
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// Runs one prepared statement type and collects its rows: as a named prepared statement (prepared on each
    /// connection the first time), or behind a pooler in transaction mode as an unnamed statement with the same SQL
    /// and bindings, since a named one would outlive the transaction on a server connection the next lease may not get.
    /// A named statement the server connection does not have, or already has, means a pooler switched connections
    /// under it (``PostgresPooler``): that is ``StoreError/Code/unavailable``, never a failed query.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        let logger = self.logger
        let client = self.client
        let pooler = configuration.pooler
        return try await perform {
            do {
                switch pooler {
                case .none:
                    return try await client.execute(statement, logger: logger).reduce(into: [Statement.Row]()) { $0.append($1) }
                case .transaction:
                    let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
                    return try await client.query(query, logger: logger).collect().map(statement.decodeRow)
                }
            } catch let error as PSQLError {
                throw PreparedStatementMismatch(error)?.storeError ?? error
            }
        }
    }

    /// Runs one statement and collects its rows.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        let client = self.client
        return try await perform {
            try await client.query(query, logger: logger).collect()
        }
    }
}
