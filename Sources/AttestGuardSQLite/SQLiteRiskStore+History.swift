public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func recentRiskMetrics(appId: String, keyId: Data, limit: Int) async throws -> [RiskMetricObservation] {
        try await query(
            "SELECT * FROM risk_metric_history WHERE app_id = ?1 AND key_id = ?2 ORDER BY receipt_created_at DESC LIMIT ?3",
            [.text(appId), SQLiteValues.bind(keyId), .integer(max(limit, 0))]
        ).map(RiskMetricObservation.init(sqlite:))
    }

    /// One range scan of the subject's index (`decision_log_by_key`, `_by_user`, `_by_device`), newest first.
    public func searchDecisions(_ search: DecisionSearch) async throws -> [DecisionLogEntry] {
        let (column, value) = search.column
        let start = search.start
        // The column name is one of three fixed names (``DecisionSearch/column``), never input.
        return try await query(
            """
            SELECT * FROM decision_log
            WHERE app_id = ?1 AND \(column) = ?2 AND decided_at >= ?3 AND decided_at < ?4 AND (decided_at, seq) < (?5, ?6)
            ORDER BY decided_at DESC, seq DESC LIMIT ?7
            """,
            [
                .text(search.appId), .text(value), SQLiteValues.bind(search.from), SQLiteValues.bind(search.to),
                SQLiteValues.bind(start.decidedAt), .integer(Int(start.sequence)), .integer(max(search.limit, 0)),
            ]
        ).map(DecisionLogEntry.init(sqlite:))
    }
}
