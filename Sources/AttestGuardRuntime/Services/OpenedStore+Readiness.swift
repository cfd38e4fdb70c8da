import AttestGuardStore
import AttestGuardPostgres
extension OpenedStore {
    /// The read replica as `/readyz` shows it: its lag bound, and its last measured lag (`nil`: not measured, the
    /// replica cannot be reached).
    public struct ReplicaState: Sendable, Hashable {
        public var maximumLag: Duration
        public var lag: Duration?
        /// The replica host measured, as `host:port`.
        public var host: String?
    }

    /// Commits waiting on a lost synchronous standby now; `nil` when none wait or the store is not PostgreSQL.
    public var commitsWaitingOnStandby: Int? {
        guard let postgres = store as? PostgresRiskStore, let waiting = postgres.commitsWaitingOnStandby, waiting > 0 else { return nil }
        return waiting
    }

    /// The read replica's state; `nil` when no replica is configured.
    public var replicaState: ReplicaState? {
        guard let postgres = store as? PostgresRiskStore, postgres.hasReplica, let bound = postgres.replicaMaximumLag else { return nil }
        let lag = postgres.replicaLag
        return ReplicaState(maximumLag: bound, lag: lag?.delay, host: lag?.host?.description)
    }
}
