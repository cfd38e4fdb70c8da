public import Foundation

/// `GET /v1/admin/rules/actions`: the last run of each rule action on each target, newest first.
public struct RuleActionRunsBody: Codable, Sendable, Hashable {
    public var runs: [RuleActionRunBody]

    public init(runs: [RuleActionRunBody]) {
        self.runs = runs
    }
}

/// The last run of one rule action (`then:` in the rules) on one target.
public struct RuleActionRunBody: Codable, Sendable, Hashable {
    public var appId: String
    /// `set_devicecheck_bit1`, `revoke_key`, `add_to_list` or `label`.
    public var action: String
    /// What it acted on: a key id, a labelled subject (`user:<hash>`), a list and value (`blocked_ips:203.0.113.9`),
    /// the DeviceCheck subjects flagged.
    public var target: String
    public var ruleId: String
    /// The action as the rule wrote it, with its values.
    public var description: String
    public var claimedAt: Date
    /// No other run of the action on the target starts before this instant.
    public var heldUntil: Date
    /// `running`, `done`, `unchanged` or `failed`.
    public var outcome: String
    /// Why it failed, or what there was to say; empty otherwise.
    public var detail: String

    public init(
        appId: String, action: String, target: String, ruleId: String, description: String, claimedAt: Date, heldUntil: Date, outcome: String,
        detail: String
    ) {
        self.appId = appId
        self.action = action
        self.target = target
        self.ruleId = ruleId
        self.description = description
        self.claimedAt = claimedAt
        self.heldUntil = heldUntil
        self.outcome = outcome
        self.detail = detail
    }
}
