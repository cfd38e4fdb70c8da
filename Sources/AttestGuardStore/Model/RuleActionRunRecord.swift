public import Foundation
public import AttestVocabulary

/// A claim of one rule action on one target (``RuleActionStore/claimRuleAction(_:)``): which app, which action on
/// what, the rule that asked, and until when no other run of it may start.
public struct RuleActionClaim: Sendable, Hashable {
    public var appId: String
    /// The action's name in the rule language (`revoke_key`).
    public var action: String
    /// What the action acts on, as the engine names it: a key id, `device:<hash>`, `blocked_ips:203.0.113.9/32`.
    public var target: String
    public var ruleId: String
    /// The action as the rule wrote it, with its values.
    public var description: String
    public var claimedAt: Date
    /// No other run of the same action on the same target starts before this instant.
    public var heldUntil: Date

    public init(appId: String, action: String, target: String, ruleId: String, description: String, claimedAt: Date, heldUntil: Date) {
        self.appId = appId
        self.action = action
        self.target = target
        self.ruleId = ruleId
        self.description = description
        self.claimedAt = claimedAt
        self.heldUntil = heldUntil
    }
}

/// The last run of one rule action on one target, as the store keeps it.
public struct RuleActionRunRecord: Sendable, Hashable {
    public var claim: RuleActionClaim
    /// `running` until the run ends, then `done`, `unchanged` or `failed`.
    public var outcome: RuleActionOutcome
    /// Why it failed, or what it changed; empty when there is nothing to say.
    public var detail: String

    public init(claim: RuleActionClaim, outcome: RuleActionOutcome, detail: String) {
        self.claim = claim
        self.outcome = outcome
        self.detail = detail
    }
}
