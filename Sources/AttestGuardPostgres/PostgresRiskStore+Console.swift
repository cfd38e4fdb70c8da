import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// A backward range scan of the partitions the range touches (`decision_log_time`), filtered to the app,
    /// stopping at the limit.
    public func verdictSample(appId: String, from: Date, to: Date, limit: Int) async throws -> [VerdictSample] {
        try await laggingRows(
            """
            SELECT decided_at, endpoint, decision, rule_decision, fired, key_id IS NOT NULL AS has_key,
                   shadow_decision, shadow_rule_set_version, shadow_fired
            FROM decision_log
            WHERE decided_at >= \(PostgresInstant(from)) AND decided_at < \(PostgresInstant(to)) AND app_id = \(appId)
            ORDER BY decided_at DESC, seq DESC LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map { row in
            let read = PostgresRowReader(row, table: "decision_log")
            let shadow = try read("shadow_decision", as: String?.self).flatMap(Decision.init(rawValue:)).map { decision in
                ShadowVerdict(
                    decision: decision, ruleSetVersion: try read("shadow_rule_set_version", as: String?.self) ?? "",
                    fired: try read("shadow_fired", as: String?.self) ?? ""
                )
            }
            return VerdictSample(
                decidedAt: try read("decided_at"), endpoint: try read.enumeration("endpoint", as: Endpoint.self),
                decision: try read.enumeration("decision", as: Decision.self), ruleDecision: try read.enumeration("rule_decision", as: Decision.self),
                fired: try read("fired"), hasKey: try read("has_key"), shadow: shadow
            )
        }
    }

    /// The app's active keys, at most `limit`, grouped by their receipt's risk metric.
    public func riskMetricCounts(appId: String, limit: Int) async throws -> [RiskMetricCount] {
        try await laggingRows(
            """
            SELECT risk_metric, count(*)::int8 AS keys FROM (
                SELECT r.risk_metric FROM app_keys k LEFT JOIN receipts r ON r.app_id = k.app_id AND r.key_id = k.key_id
                WHERE k.app_id = \(appId) AND k.status = 'active' LIMIT \(Int32(clamping: max(limit, 0)))
            ) AS sample GROUP BY risk_metric ORDER BY risk_metric
            """
        ).map { row in
            let read = PostgresRowReader(row, table: "receipts")
            return RiskMetricCount(riskMetric: try read("risk_metric", as: Int32?.self).map { Int($0) }, keys: Int(try read("keys", as: Int64.self)))
        }
    }
}

extension PostgresRiskStore {
    /// By the primary key's range (app, key id), from the replica when one is configured: a sweep reads what the
    /// night's refresh wrote, and a key a few seconds late is swept the next night.
    public func activeKeys(appId: String, after: Data?, limit: Int) async throws -> [ActiveKey] {
        try await laggingRows(
            """
            SELECT key_id, user_id, device_id FROM app_keys
            WHERE app_id = \(appId) AND status = 'active' AND key_id > \(after ?? Data())
            ORDER BY key_id LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map { row in
            let read = PostgresRowReader(row, table: "app_keys")
            return ActiveKey(keyId: try read("key_id"), userId: try read("user_id"), deviceId: try read("device_id"))
        }
    }
}
