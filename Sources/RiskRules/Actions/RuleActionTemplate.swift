/// One action of a rule's `then:`, compiled with the rule: its arguments that depend on the request are evaluated
/// when the rule fires (``resolve(_:)``).
struct RuleActionTemplate: Sendable {
    /// The action as written in the rule file.
    let text: String
    let name: RuleActionName
    /// The action for one evaluation's values; `nil` when a value it needs is missing (an `add_to_list` of
    /// `request.ip` for a request without an IP does nothing).
    let resolve: @Sendable (SignalValues) -> RuleAction?
}
