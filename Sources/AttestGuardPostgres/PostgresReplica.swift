import EventLoopConcurrency
import Logging
import PostgresNIO
import Synchronization
import AttestGuardStore

/// The read replica of `database.readUrl`: pools on the host its URL picks (``PostgresHostPools``), and how far that
/// host is behind the primary, measured every ``measureInterval``. Only reads that may lag use it (history,
/// decision search, console aggregates, the backtest's log); a read is refused while the replica is further behind
/// than ``maximumLag`` or its lag is unknown, rather than answered from old data.
final class PostgresReplica: Sendable {
    static let measureInterval: Duration = .seconds(1)

    /// The replica's delay: zero while it has replayed everything it received and still streams; else the time
    /// since the last transaction it replayed (so a replica cut off from its primary falls behind as time passes).
    /// A host that is not in recovery is a primary: no delay. PostgreSQL shows the WAL receiver's status only to roles
    /// with `pg_read_all_stats`; to a plain read-only role it shows the receiver's process alone, which then stands
    /// for a receiver that streams (else an idle primary would make such a replica look ever further behind).
    static let lagQuery: PostgresQuery = """
        SELECT CASE
            WHEN NOT pg_is_in_recovery() THEN 0
            WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
                AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE pid IS NOT NULL AND coalesce(status, 'streaming') = 'streaming') THEN 0
            ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)
        END::float8
        """

    let hosts: PostgresHostPools
    let maximumLag: Duration
    private let logger: Logger
    private let measured = Mutex<ReplicaLag?>(nil)
    /// Opened once the first measurement has been tried, so that a read right after start waits for it.
    let firstMeasurement = StartSignal()

    init(configuration: PostgresStoreConfiguration, maximumLag: Duration, logger: Logger) {
        self.hosts = PostgresHostPools(configuration: configuration, logger: logger)
        self.maximumLag = maximumLag
        self.logger = logger
    }

    /// The last measurement, if one is recent.
    var lag: ReplicaLag? {
        measured.withLock { $0 }.flatMap { $0.measuredAt + Self.measureInterval * 3 >= .now ? $0 : nil }
    }

    /// Throws ``StoreError/Code/unavailable`` unless the replica is known to be within ``maximumLag``.
    func checkLag() throws {
        guard let lag else {
            throw StoreError(.unavailable, "the read replica's lag is unknown (database.readUrl does not answer)")
        }
        guard lag.delay <= maximumLag else {
            throw StoreError(.unavailable, "the read replica is \(lag.delay) behind, more than database.readMaxLagSeconds (\(maximumLag)) allows")
        }
    }

    /// Runs the replica's pools and measures its lag until the task is cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.hosts.run() }
            group.addTask { await self.measure() }
        }
    }

    private func measure() async {
        while !Task.isCancelled {
            do {
                let logger = self.logger
                // Closed on cancellation: a replica that stops answering must not hold the store's shutdown.
                let rows = try await hosts.perform(closingOnCancellation: true) { client in
                    try await client.withHeldConnection { try await $0.query(Self.lagQuery, logger: logger).collect() }
                }
                let seconds = try rows.first?.decode(Double.self) ?? 0
                let host = try hosts.servingNow()?.host
                measured.withLock { $0 = ReplicaLag(delay: .milliseconds(Int64(seconds * 1_000)), host: host, measuredAt: .now) }
            } catch {
                measured.withLock { $0 = nil }
                logger.debug("read replica lag not measured", metadata: ["error": .string(String(describing: error))])
            }
            firstMeasurement.open()
            try? await Task.sleep(for: Self.measureInterval)
        }
    }
}

/// How far the read replica is behind the primary, as last measured.
public struct ReplicaLag: Sendable, Hashable {
    public var delay: Duration
    /// The replica host measured.
    public var host: PostgresURL.Host?
    public var measuredAt: ContinuousClock.Instant
}
