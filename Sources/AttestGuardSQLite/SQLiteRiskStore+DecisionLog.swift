import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func appendDecisions(_ entries: [DecisionLogEntry]) async throws {
        guard !entries.isEmpty else { return }
        let statements = SQLiteRowStatements(
            """
            INSERT INTO decision_log (app_id, decided_at, endpoint, key_id, user_hash, ip_hash, device_hash, decision, rule_decision, score,
                                      rule_set_version, fired, signals, shadow_decision, shadow_rule_set_version, shadow_fired, request_id)
            VALUES
            """,
            rows: entries.map { entry in
                [
                    .text(entry.appId), SQLiteValues.bind(entry.decidedAt), .text(entry.endpoint.rawValue), SQLiteValues.bind(entry.keyId),
                    SQLiteValues.bind(entry.userHash), SQLiteValues.bind(entry.ipHash), SQLiteValues.bind(entry.deviceHash),
                    .text(entry.decision.rawValue), .text(entry.ruleDecision.rawValue),
                    .float(entry.score), .text(entry.ruleSetVersion), .text(entry.fired), .text(entry.signals),
                    SQLiteValues.bind(entry.shadow?.decision.rawValue), SQLiteValues.bind(entry.shadow?.ruleSetVersion),
                    SQLiteValues.bind(entry.shadow?.fired), SQLiteValues.bind(entry.requestId),
                ]
            },
            width: 17
        )
        _ = try await transaction { try await statements.run(on: $0) }
    }

    public func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry] {
        try await query(SQLiteDecisionPage.sql, SQLiteDecisionPage.binds(since: since, after: cursor, limit: limit))
            .map(DecisionLogEntry.init(sqlite:))
    }

    public func purgeDecisions(before: Date) async throws -> Int {
        try await query("DELETE FROM decision_log WHERE decided_at < ?1 RETURNING 1", [SQLiteValues.bind(before)]).count
    }
}

/// One page of the decision log in (decidedAt, sequence) order: the statement the store and the read-only
/// ``SQLiteDecisionLogReader`` share.
enum SQLiteDecisionPage {
    static let sql = """
        SELECT * FROM decision_log
        WHERE decided_at >= ?1 AND (decided_at > ?2 OR (decided_at = ?2 AND seq > ?3))
        ORDER BY decided_at, seq LIMIT ?4
        """

    static func binds(since: Date, after cursor: DecisionLogEntry?, limit: Int) -> [SQLiteData] {
        let afterTime = cursor.map { SQLiteValues.bind($0.decidedAt) } ?? .integer(-1)
        let afterSequence = SQLiteData.integer(Int(cursor?.sequence ?? -1))
        return [SQLiteValues.bind(since), afterTime, afterSequence, .integer(max(limit, 0))]
    }
}

extension DecisionLogEntry {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "decision_log")
        self.init(
            appId: try reader.text("app_id"), decidedAt: try reader.date("decided_at"), endpoint: try reader.enumeration("endpoint", as: Endpoint.self),
            keyId: try reader.optionalText("key_id"), userHash: try reader.optionalText("user_hash"), ipHash: try reader.optionalText("ip_hash"),
            deviceHash: try reader.optionalText("device_hash"),
            decision: try reader.enumeration("decision", as: Decision.self), ruleDecision: try reader.enumeration("rule_decision", as: Decision.self), score: try reader.real("score"),
            ruleSetVersion: try reader.text("rule_set_version"), fired: try reader.text("fired"), signals: try reader.text("signals")
        )
        sequence = try reader.integer("seq")
        requestId = try reader.optionalText("request_id")
        if let shadowDecision = try reader.optionalText("shadow_decision"), let decision = Decision(rawValue: shadowDecision) {
            shadow = ShadowVerdict(
                decision: decision, ruleSetVersion: try reader.optionalText("shadow_rule_set_version") ?? "", fired: try reader.optionalText("shadow_fired") ?? ""
            )
        }
    }
}
