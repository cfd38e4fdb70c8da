import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    /// A backward range scan of `decision_log_time`, filtered to the app, stopping at the limit.
    public func verdictSample(appId: String, from: Date, to: Date, limit: Int) async throws -> [VerdictSample] {
        try await query(
            """
            SELECT decided_at, endpoint, decision, rule_decision, fired, key_id IS NOT NULL AS has_key,
                   shadow_decision, shadow_rule_set_version, shadow_fired
            FROM decision_log WHERE decided_at >= ?1 AND decided_at < ?2 AND app_id = ?3
            ORDER BY decided_at DESC, seq DESC LIMIT ?4
            """,
            [SQLiteValues.bind(from), SQLiteValues.bind(to), .text(appId), .integer(max(limit, 0))]
        ).map { row in
            let reader = SQLiteRowReader(row: row, table: "decision_log")
            let shadow = try reader.optionalText("shadow_decision").flatMap(Decision.init(rawValue:)).map { decision in
                ShadowVerdict(
                    decision: decision, ruleSetVersion: try reader.optionalText("shadow_rule_set_version") ?? "",
                    fired: try reader.optionalText("shadow_fired") ?? ""
                )
            }
            return VerdictSample(
                decidedAt: try reader.date("decided_at"), endpoint: try reader.enumeration("endpoint", as: Endpoint.self),
                decision: try reader.enumeration("decision", as: Decision.self), ruleDecision: try reader.enumeration("rule_decision", as: Decision.self),
                fired: try reader.text("fired"), hasKey: try reader.integer("has_key") != 0, shadow: shadow
            )
        }
    }

    /// The app's active keys in primary-key order, at most `limit`, grouped by their receipt's risk metric.
    public func riskMetricCounts(appId: String, limit: Int) async throws -> [RiskMetricCount] {
        try await query(
            """
            SELECT risk_metric, count(*) AS keys FROM (
                SELECT r.risk_metric FROM app_keys k LEFT JOIN receipts r ON r.app_id = k.app_id AND r.key_id = k.key_id
                WHERE k.app_id = ?1 AND k.status = 'active' LIMIT ?2
            ) GROUP BY risk_metric ORDER BY risk_metric
            """,
            [.text(appId), .integer(max(limit, 0))]
        ).map { row in
            let reader = SQLiteRowReader(row: row, table: "receipts")
            return RiskMetricCount(riskMetric: try reader.optionalInteger("risk_metric").map { Int($0) }, keys: Int(try reader.integer("keys")))
        }
    }
}

extension SQLiteRiskStore {
    /// By the primary key's range (app, key id).
    public func activeKeys(appId: String, after: Data?, limit: Int) async throws -> [ActiveKey] {
        try await query(
            "SELECT key_id, user_id, device_id FROM app_keys WHERE app_id = ?1 AND status = 'active' AND key_id > ?2 ORDER BY key_id LIMIT ?3",
            [.text(appId), SQLiteValues.bind(after ?? Data()), .integer(max(limit, 0))]
        ).map { row in
            let read = SQLiteRowReader(row: row, table: "app_keys")
            return ActiveKey(keyId: try read.blob("key_id"), userId: try read.text("user_id"), deviceId: try read.optionalText("device_id"))
        }
    }
}
