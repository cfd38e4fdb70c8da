import AttestGuardStore
import AttestGuardPostgres
import AttestVocabulary
package import Prometheus
import Synchronization

/// The PostgreSQL store's state in metrics, read when `/metrics` is scraped: whether a writable host serves
/// (`attestguard_store_primary_up`), operations past their deadline and abandoned
/// (`attestguard_store_operations_timed_out_total`, `attestguard_store_operations_abandoned_total`), commits waiting
/// for a synchronous standby (`attestguard_store_commits_waiting_on_standby`) and, with a read replica, whether it is
/// usable and how far behind it is (`attestguard_store_replica_up`, `attestguard_store_replica_lag_seconds`), and the
/// statement batching of accepted assertions and of verdicts' reads (`attestguard_store_assertion_batches_total`,
/// `attestguard_store_assertion_batch_entries_total`, `attestguard_store_read_batches_total`,
/// `attestguard_store_read_batch_entries_total`).
/// Nothing for SQLite.
package final class StoreMetrics: Sendable {
    private let store: PostgresRiskStore
    private let primaryUp: Gauge
    private let waitingOnStandby: Gauge
    private let timedOut: CountMirror
    private let abandoned: CountMirror
    private let assertionBatches: CountMirror
    private let assertionBatchEntries: CountMirror
    private let readBatches: CountMirror
    private let readBatchEntries: CountMirror
    private let replica: (up: Gauge, lag: Gauge)?

    package init?(store: OpenedStore, registry: PrometheusCollectorRegistry) {
        guard let postgres = store.store as? PostgresRiskStore else { return nil }
        self.store = postgres
        func gauge(_ family: MetricFamily) -> Gauge { registry.makeGauge(descriptor: .standard(family.name, help: family.help)) }
        func counter(_ family: MetricFamily) -> CountMirror {
            CountMirror(registry.makeCounter(descriptor: .standard(family.name, help: family.help)))
        }
        primaryUp = gauge(.storePrimaryUp)
        waitingOnStandby = gauge(.storeCommitsWaitingOnStandby)
        timedOut = counter(.storeOperationsTimedOut)
        abandoned = counter(.storeOperationsAbandoned)
        assertionBatches = counter(.storeAssertionBatches)
        assertionBatchEntries = counter(.storeAssertionBatchEntries)
        readBatches = counter(.storeReadBatches)
        readBatchEntries = counter(.storeReadBatchEntries)
        replica = postgres.hasReplica ? (gauge(.storeReplicaUp), gauge(.storeReplicaLag)) : nil
    }

    package func update() {
        primaryUp.set(Double(store.primaryServes ? 1 : 0))
        waitingOnStandby.set(Double(store.commitsWaitingOnStandby ?? 0))
        let deadlines = store.deadlineCounts
        timedOut.advance(to: deadlines.timedOut)
        abandoned.advance(to: deadlines.abandoned)
        let batches = store.assertionBatchCounts
        assertionBatches.advance(to: batches.batches)
        assertionBatchEntries.advance(to: batches.entries)
        let reads = store.readBatchCounts
        readBatches.advance(to: reads.batches)
        readBatchEntries.advance(to: reads.entries)
        guard let replica else { return }
        let lag = store.replicaLag
        if let lag { replica.lag.set(lag.delay.timeInterval) }
        let withinBound = lag.map { lag in store.replicaMaximumLag.map { lag.delay <= $0 } ?? false } ?? false
        replica.up.set(Double(withinBound ? 1 : 0))
    }
}

/// A Prometheus counter that follows a count the store keeps since it opened: each scrape adds what the count gained
/// since the last one.
private final class CountMirror: Sendable {
    private let counter: Counter
    /// The part of the count already added to the counter.
    private let counted = Mutex(0)

    init(_ counter: Counter) {
        self.counter = counter
    }

    func advance(to total: Int) {
        let before = counted.withLock { counted in
            defer { counted = total }
            return counted
        }
        counter.increment(by: Int64(max(0, total - before)))
    }
}
