public import Foundation
public import AttestVocabulary

/// Where the actions of fired rules take their turn, so that each runs at most once per target and period across
/// every process that shares the store, and where the last run of each is kept.
public protocol RuleActionStore: Sendable {
    /// Claims `claim`'s action on its target, unless an earlier claim of it holds past `claim.claimedAt`.
    /// - Returns: Whether this claim now holds it (and the action may run).
    func claimRuleAction(_ claim: RuleActionClaim) async throws -> Bool

    /// Records how the run that holds `claim` ended.
    func finishRuleAction(_ claim: RuleActionClaim, outcome: RuleActionOutcome, detail: String) async throws

    /// The latest runs, newest first: of one app, or of every app when `appId` is `nil`.
    func ruleActionRuns(appId: String?, limit: Int) async throws -> [RuleActionRunRecord]

    /// Deletes runs whose hold ended before `instant`; returns how many.
    func purgeRuleActionRuns(heldUntilBefore instant: Date) async throws -> Int
}
