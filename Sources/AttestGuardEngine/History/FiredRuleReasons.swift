import AttestGuardStore
import Foundation
import RiskRules

/// The fired rules of logged decisions with their scores and reasons. The log keeps only the ids (the hot path
/// writes no more); a reason is rendered again from the logged signals under the rule set of the same version, when
/// this process holds it. A rule that read a raw identifier the log leaves out may not fire again: its reason is
/// then unknown, and so is every reason of a version no longer held.
struct FiredRuleReasons {
    private let byVersion: [String: RuleSet]

    init(ruleSets: [RuleSet]) {
        byVersion = Dictionary(ruleSets.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func decision(_ entry: DecisionLogEntry) -> LoggedDecision {
        let ids = entry.fired.split(separator: ",").map(String.init)
        var replayed: [String: RuleEvaluation.Fired] = [:]
        if !ids.isEmpty, let ruleSet = byVersion[entry.ruleSetVersion],
            let evaluation = ruleSet.evaluate(snapshot: entry.signals, decidedAt: entry.decidedAt)
        {
            replayed = Dictionary(evaluation.fired.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return LoggedDecision(
            decidedAt: entry.decidedAt, endpoint: entry.endpoint, decision: entry.decision, ruleDecision: entry.ruleDecision,
            score: entry.score, ruleSetVersion: entry.ruleSetVersion, keyId: entry.keyId,
            fired: ids.map { LoggedDecision.FiredRule(ruleId: $0, score: replayed[$0]?.score, reason: replayed[$0]?.reason) },
            signals: entry.signals, shadow: entry.shadow
        )
    }
}
