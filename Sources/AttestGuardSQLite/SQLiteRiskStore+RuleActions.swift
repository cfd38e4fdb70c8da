public import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func claimRuleAction(_ claim: RuleActionClaim) async throws -> Bool {
        let claimed = try await query(
            """
            INSERT INTO rule_action_runs (app_id, action, target, rule_id, description, claimed_at, held_until, outcome, detail)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '')
            ON CONFLICT (app_id, action, target) DO UPDATE SET
                rule_id = excluded.rule_id, description = excluded.description, claimed_at = excluded.claimed_at,
                held_until = excluded.held_until, outcome = excluded.outcome, detail = excluded.detail
            WHERE rule_action_runs.held_until <= excluded.claimed_at
            RETURNING 1
            """,
            [.text(claim.appId), .text(claim.action), .text(claim.target), .text(claim.ruleId), .text(claim.description),
             SQLiteValues.bind(claim.claimedAt), SQLiteValues.bind(claim.heldUntil), .text(RuleActionOutcome.running.rawValue)]
        )
        return !claimed.isEmpty
    }

    public func finishRuleAction(_ claim: RuleActionClaim, outcome: RuleActionOutcome, detail: String) async throws {
        _ = try await query(
            "UPDATE rule_action_runs SET outcome = ?1, detail = ?2 WHERE app_id = ?3 AND action = ?4 AND target = ?5 AND claimed_at = ?6",
            [.text(outcome.rawValue), .text(detail), .text(claim.appId), .text(claim.action), .text(claim.target), SQLiteValues.bind(claim.claimedAt)]
        )
    }

    public func ruleActionRuns(appId: String?, limit: Int) async throws -> [RuleActionRunRecord] {
        try await query(
            "SELECT * FROM rule_action_runs WHERE ?1 IS NULL OR app_id = ?1 ORDER BY claimed_at DESC, app_id, action, target LIMIT ?2",
            [SQLiteValues.bind(appId), .integer(max(limit, 0))]
        ).map(RuleActionRunRecord.init(sqlite:))
    }

    public func purgeRuleActionRuns(heldUntilBefore instant: Date) async throws -> Int {
        try await query("DELETE FROM rule_action_runs WHERE held_until < ?1 RETURNING 1", [SQLiteValues.bind(instant)]).count
    }
}

extension RuleActionRunRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "rule_action_runs")
        self.init(
            claim: RuleActionClaim(
                appId: try read.text("app_id"), action: try read.text("action"), target: try read.text("target"), ruleId: try read.text("rule_id"),
                description: try read.text("description"), claimedAt: try read.date("claimed_at"), heldUntil: try read.date("held_until")
            ),
            outcome: try read.enumeration("outcome", as: RuleActionOutcome.self), detail: try read.text("detail")
        )
    }
}
