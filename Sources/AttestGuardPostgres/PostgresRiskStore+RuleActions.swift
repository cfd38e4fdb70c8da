public import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func claimRuleAction(_ claim: RuleActionClaim) async throws -> Bool {
        // One statement: the row is taken when there is none, or when the hold of the last run has ended; a
        // concurrent claim waits on the row's lock and then finds the hold in force.
        let claimed = try await rows(
            """
            INSERT INTO rule_action_runs (app_id, action, target, rule_id, description, claimed_at, held_until, outcome, detail)
            VALUES (\(claim.appId), \(claim.action), \(claim.target), \(claim.ruleId), \(claim.description), \(claim.claimedAt),
                    \(claim.heldUntil), \(RuleActionOutcome.running.rawValue), '')
            ON CONFLICT (app_id, action, target) DO UPDATE SET
                rule_id = EXCLUDED.rule_id, description = EXCLUDED.description, claimed_at = EXCLUDED.claimed_at,
                held_until = EXCLUDED.held_until, outcome = EXCLUDED.outcome, detail = EXCLUDED.detail
            WHERE rule_action_runs.held_until <= EXCLUDED.claimed_at
            RETURNING 1
            """
        )
        return !claimed.isEmpty
    }

    public func finishRuleAction(_ claim: RuleActionClaim, outcome: RuleActionOutcome, detail: String) async throws {
        _ = try await rows(
            """
            UPDATE rule_action_runs SET outcome = \(outcome.rawValue), detail = \(detail)
            WHERE app_id = \(claim.appId) AND action = \(claim.action) AND target = \(claim.target) AND claimed_at = \(claim.claimedAt)
            """
        )
    }

    public func ruleActionRuns(appId: String?, limit: Int) async throws -> [RuleActionRunRecord] {
        try await rows(
            """
            SELECT * FROM rule_action_runs WHERE \(appId)::text IS NULL OR app_id = \(appId)
            ORDER BY claimed_at DESC, app_id, action, target LIMIT \(Int64(max(limit, 0)))
            """
        ).map(RuleActionRunRecord.init(postgres:))
    }

    public func purgeRuleActionRuns(heldUntilBefore instant: Date) async throws -> Int {
        try await rows("DELETE FROM rule_action_runs WHERE held_until < \(instant) RETURNING 1").count
    }
}

extension RuleActionRunRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "rule_action_runs")
        self.init(
            claim: RuleActionClaim(
                appId: try read("app_id"), action: try read("action"), target: try read("target"), ruleId: try read("rule_id"),
                description: try read("description"), claimedAt: try read("claimed_at"), heldUntil: try read("held_until")
            ),
            outcome: try read.enumeration("outcome", as: RuleActionOutcome.self), detail: try read("detail")
        )
    }
}
