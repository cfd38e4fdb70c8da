import AttestGuardStorage
import AttestVocabulary
import Prometheus

/// The PostgreSQL store's state in metrics, read when `/metrics` is scraped: whether a writable host serves
/// (`attestguard_store_primary_up`) and, with a read replica, whether it is usable and how far behind it is
/// (`attestguard_store_replica_up`, `attestguard_store_replica_lag_seconds`). Nothing for SQLite.
struct StoreMetrics: Sendable {
    private let store: PostgresRiskStore
    private let primaryUp: Gauge
    private let replica: (up: Gauge, lag: Gauge)?

    init?(store: OpenedStore, registry: PrometheusCollectorRegistry) {
        guard let postgres = store.store as? PostgresRiskStore else { return nil }
        self.store = postgres
        func gauge(_ family: MetricFamily) -> Gauge { registry.makeGauge(descriptor: .standard(family.name, help: family.help)) }
        primaryUp = gauge(.storePrimaryUp)
        replica = postgres.hasReplica ? (gauge(.storeReplicaUp), gauge(.storeReplicaLag)) : nil
    }

    func update() {
        primaryUp.set(Double(store.primaryServes ? 1 : 0))
        guard let replica else { return }
        let lag = store.replicaLag
        if let lag { replica.lag.set(lag.delay.timeInterval) }
        let withinBound = lag.map { lag in store.replicaMaximumLag.map { lag.delay <= $0 } ?? false } ?? false
        replica.up.set(Double(withinBound ? 1 : 0))
    }
}
