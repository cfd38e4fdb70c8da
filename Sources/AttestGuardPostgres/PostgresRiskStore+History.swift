public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func recentRiskMetrics(appId: String, keyId: Data, limit: Int) async throws -> [RiskMetricObservation] {
        try await laggingRows(
            """
            SELECT * FROM risk_metric_history WHERE app_id = \(appId) AND key_id = \(keyId)
            ORDER BY receipt_created_at DESC LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map(RiskMetricObservation.init(postgres:))
    }

    /// One index range scan (`decision_log_by_key`, `_by_user`, `_by_device`) over the partitions the range
    /// touches, newest first, stopping at the limit.
    public func searchDecisions(_ search: DecisionSearch) async throws -> [DecisionLogEntry] {
        try await laggingRows(Self.searchQuery(search)).map(DecisionLogEntry.init(postgres:))
    }

    /// The query of ``searchDecisions(_:)``. The subject indexes are keyed by the subject's 64-bit hash seeded with
    /// the app's (schema 36), so the query names the same expression; the subject and the app are compared on the
    /// rows read.
    static func searchQuery(_ search: DecisionSearch) -> PostgresQuery {
        let (column, value) = search.column
        let start = search.start
        return """
            SELECT * FROM decision_log
            WHERE hashtextextended(\(unescaped: column), hashtextextended(app_id, 0)) = hashtextextended(\(value), hashtextextended(\(search.appId), 0))
              AND \(unescaped: column) = \(value) AND app_id = \(search.appId)
              AND decided_at >= \(PostgresInstant(search.from)) AND decided_at < \(PostgresInstant(search.to))
              AND (decided_at, seq) < (\(PostgresInstant(start.decidedAt)), \(start.sequence))
            ORDER BY decided_at DESC, seq DESC LIMIT \(Int32(clamping: max(search.limit, 0)))
            """
    }
}
