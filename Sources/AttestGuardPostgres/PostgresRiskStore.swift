import Foundation
import Synchronization
public import Logging
public import PostgresNIO
public import ServiceLifecycle
import AttestVocabulary
public import AttestGuardStore

/// The production store: pooled PostgreSQL connections (one pool per event loop, ``LoopAffinePostgresPools``),
/// shared by any number of server processes. Challenge
/// consumption and counter advance are conditional `UPDATE`s in one transaction, so concurrent submissions of
/// one assertion, in one process or many, have exactly one winner.
///
/// The URL may name several hosts; the pools connect to the first that takes writes and move when it stops
/// (``PostgresHostPools``). While none does, every operation fails at once with ``StoreError/Code/unavailable``.
///
/// The store is a `Service`: run it (or put it in the `ServiceGroup`) before using it.
public final class PostgresRiskStore: RiskStore, Service {
    public let configuration: PostgresStoreConfiguration
    let logger: Logger
    /// The serving host's pools, and the search for that host.
    let hosts: PostgresHostPools
    /// Decision log day partitions this process has created or found (see `appendDecisions`).
    let knownPartitions = Mutex<Set<String>>([])

    /// The read replica for reads that may lag (`database.readUrl`), if there is one.
    let replica: PostgresReplica?

    /// This process's accepted assertions gathered into batches of one statement each; `nil` when batching is off.
    let assertionCommits: GroupCommit<AssertionBatchEntry, (AssertionBatchAnswer, ScoringFacts)>?
    /// This process's verdicts' reads (``scoringFacts(_:)``) gathered the same way.
    let factReads: GroupCommit<ScoringFactsQuery, ScoringFacts>?

    /// - Parameters:
    ///   - replica: The read replica's URL and pool (`database.readUrl`); `nil`: every read goes to the primary.
    ///   - replicaMaximumLag: How far behind the replica may be before reads that use it are refused.
    public init(
        configuration: PostgresStoreConfiguration,
        replica: PostgresStoreConfiguration? = nil,
        replicaMaximumLag: Duration = .seconds(60),
        logger: Logger
    ) {
        self.configuration = configuration
        self.logger = logger
        self.hosts = PostgresHostPools(configuration: configuration, logger: logger)
        self.replica = replica.map { PostgresReplica(configuration: $0, maximumLag: replicaMaximumLag, logger: logger) }
        let batching = configuration.batchSize > 1
        self.assertionCommits = batching ? GroupCommit(maximumBatch: configuration.batchSize, maximumRunning: configuration.batchesInFlight) : nil
        self.factReads = batching ? GroupCommit(maximumBatch: configuration.batchSize, maximumRunning: configuration.batchesInFlight) : nil
    }

    /// Finds the serving host (and the replica's) and runs their pools until the task is cancelled or graceful
    /// shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.hosts.run() }
                if let replica = self.replica { group.addTask { await replica.run() } }
            }
        }
    }

    /// The read replica's last measured lag; `nil` when there is no replica or its lag is unknown.
    public var replicaLag: ReplicaLag? { replica?.lag }

    /// Whether a writable host serves now (else every operation fails with ``StoreError/Code/unavailable``).
    public var primaryServes: Bool { (try? hosts.servingNow()) != nil }

    /// The primary's commits waiting for a synchronous standby, as last probed (`nil`: not known).
    public var commitsWaitingOnStandby: Int? { hosts.commitsWaitingOnStandby }

    /// Store operations past their deadline since the store opened (their connections closed), and those of them
    /// abandoned because they had not stopped soon after (``StoreDeadlineCounts``).
    public var deadlineCounts: (timedOut: Int, abandoned: Int) {
        let primary = hosts.deadlines.snapshot
        let replica = self.replica?.hosts.deadlines.snapshot ?? (timedOut: 0, abandoned: 0)
        return (primary.timedOut + replica.timedOut, primary.abandoned + replica.abandoned)
    }

    /// Statements that committed accepted assertions in groups, and the assertions they carried (zero with batching
    /// off).
    public var assertionBatchCounts: (batches: Int, entries: Int) { assertionCommits?.counts ?? (0, 0) }

    /// Statements that read verdicts' facts in groups, and the reads they carried (zero with batching off).
    public var readBatchCounts: (batches: Int, entries: Int) { factReads?.counts ?? (0, 0) }

    /// Whether reads that may lag go to a replica (`database.readUrl`).
    public var hasReplica: Bool { replica != nil }

    /// The replica's bound (`database.readMaxLagSeconds`); `nil` without a replica.
    public var replicaMaximumLag: Duration? { replica?.maximumLag }

    /// The serving host's pools (once the store runs and a host serves, within the operation timeout).
    public func servingPools() async throws -> LoopAffinePostgresPools {
        try await perform { _ in try await self.hosts.serving().pools }
    }

    /// A pool of the serving host, for statements of the caller's own (tests, benchmarks).
    public func client() async throws -> PostgresClient {
        try await perform { client in client }
    }

    // MARK: - Error mapping and transactions

    /// Runs one store operation on a pool of the serving host (the running loop's, or the next in turn) under the
    /// configured deadline, mapping driver failures to ``StoreError``.
    func perform<Result: Sendable>(_ operation: @escaping @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        try await hosts.perform(operation)
    }

    /// Runs a read that may lag on the read replica (`database.readUrl`) when there is one and it is within its lag
    /// bound (else ``StoreError/Code/unavailable``), and on the primary when there is none.
    func performLagging<Result: Sendable>(_ operation: @escaping @Sendable (PostgresClient) async throws -> Result) async throws -> Result {
        guard let replica else { return try await hosts.perform(operation) }
        if !replica.firstMeasurement.isOpen {
            // Just started: the first measurement is under way (its wait counts against the deadline).
            try await withOperationDeadline(configuration.operationTimeout, counts: hosts.deadlines) { try await replica.firstMeasurement.wait() }
        }
        try replica.checkLag()
        return try await replica.hosts.perform(operation)
    }

    /// Runs one read that may lag (``performLagging(_:)``) and collects its rows.
    func laggingRows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        return try await performLagging { client in
            try await client.withHeldConnection { try await $0.query(query, logger: logger).collect() }
        }
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on one pooled connection; any error rolls back and is rethrown as is.
    /// `limit` replaces the operation timeout (`database.timeoutMilliseconds`) as the whole transaction's deadline.
    func transaction<Result: Sendable>(
        within limit: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        return try await hosts.perform(within: limit) { client in
            try await client.withHeldConnection { connection in
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
    /// under it (``PostgresPooler``): that is ``StoreError/Code/unavailable``, never a failed query. A connection
    /// whose prepared statement a migration made stale is replaced (``executeNamed(_:on:attempts:logger:)``).
    ///
    /// A statement that carries requests which waited for it (``GroupCommit``) passes the instant the oldest of them
    /// started waiting as `waitingSince`: the statement gets what is left of that request's deadline, so that no
    /// request waits longer than the operation timeout in all, and none at all once it has passed.
    func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        waitingSince: ContinuousClock.Instant? = nil
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        let logger = self.logger
        let pooler = configuration.pooler
        let attempts = configuration.client.options.maximumConnections + 1
        var limit: Duration?
        if let waitingSince {
            let left = configuration.operationTimeout - (ContinuousClock.now - waitingSince)
            guard left > .zero else {
                hosts.deadlines.noteTimedOut()
                throw operationTimedOut(configuration.operationTimeout)
            }
            limit = left
        }
        return try await hosts.perform(within: limit) { client in
            do {
                switch pooler {
                case .none:
                    return try await Self.executeNamed(statement, on: client, attempts: attempts, logger: logger)
                case .transaction:
                    let sql = (Statement.self as? any UnnamedStatementText.Type)?.unnamedSQL ?? Statement.sql
                    let query = PostgresQuery(unsafeSQL: sql, binds: try statement.makeBindings())
                    return try await client.withHeldConnection { try await $0.query(query, logger: logger).collect() }.map(statement.decodeRow)
                }
            } catch let error as PSQLError {
                throw PreparedStatementMismatch(error)?.storeError ?? error
            }
        }
    }

    /// Runs `statement` as a named prepared statement on a connection of `client`. A connection that refuses it
    /// because the schema changed under it since it prepared the statement (``StalePreparedPlan``) refuses it for
    /// as long as it lives: the store closes it, so that the pool opens a fresh one, and runs the statement on
    /// another, up to `attempts` connections in all (the pool's size and one more: each stale connection is met once).
    /// The refusal comes before the statement runs, so running it again never applies it twice.
    static func executeNamed<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        on client: PostgresClient,
        attempts: Int,
        logger: Logger
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        var refusal: StalePreparedPlan?
        for _ in 0..<max(1, attempts) {
            do {
                return try await client.withHeldConnection { connection in
                    do {
                        return try await connection.execute(statement, logger: logger).reduce(into: [Statement.Row]()) { $0.append($1) }
                    } catch let error as PSQLError where StalePreparedPlan(error) != nil {
                        // Closed before the pool takes it back, so that it is never lent again.
                        try? await connection.close()
                        throw error
                    }
                }
            } catch let error as PSQLError {
                guard let stale = StalePreparedPlan(error) else { throw error }
                logger.warning(
                    "prepared statement refused after a schema change; its connection closed",
                    metadata: ["statement": "\(Statement.self)", "sqlstate": "\(StalePreparedPlan.sqlState)"]
                )
                refusal = stale
            }
        }
        throw refusal?.storeError ?? StoreError(.unavailable, "no connection ran \(Statement.self)")
    }

    /// Runs one statement and collects its rows.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        return try await perform { client in
            try await client.withHeldConnection { try await $0.query(query, logger: logger).collect() }
        }
    }
}
