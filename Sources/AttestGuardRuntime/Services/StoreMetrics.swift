import AttestGuardStore
import AttestGuardPostgres
import AttestVocabulary
package import Prometheus

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
    private let timedOut: CumulativeCounter
    private let abandoned: CumulativeCounter
    private let assertionBatches: CumulativeCounter
    private let assertionBatchEntries: CumulativeCounter
    private let readBatches: CumulativeCounter
    private let readBatchEntries: CumulativeCounter
    private let replica: (up: Gauge, lag: Gauge)?

    package init?(store: OpenedStore, registry: PrometheusCollectorRegistry) {
        guard let postgres = store.store as? PostgresRiskStore else { return nil }
        self.store = postgres
        func gauge(_ family: MetricFamily) -> Gauge { registry.makeGauge(descriptor: .standard(family.name, help: family.help)) }
        func counter(_ family: MetricFamily) -> CumulativeCounter {
            let counter = registry.makeCounter(descriptor: .standard(family.name, help: family.help))
            return CumulativeCounter { counter.increment(by: Int64($0)) }
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
        timedOut.advance(to: Double(deadlines.timedOut))
        abandoned.advance(to: Double(deadlines.abandoned))
        let batches = store.assertionBatchCounts
        assertionBatches.advance(to: Double(batches.batches))
        assertionBatchEntries.advance(to: Double(batches.entries))
        let reads = store.readBatchCounts
        readBatches.advance(to: Double(reads.batches))
        readBatchEntries.advance(to: Double(reads.entries))
        guard let replica else { return }
        let lag = store.replicaLag
        if let lag { replica.lag.set(lag.delay.timeInterval) }
        let withinBound = lag.map { lag in store.replicaMaximumLag.map { lag.delay <= $0 } ?? false } ?? false
        replica.up.set(Double(withinBound ? 1 : 0))
    }
}
