public import AttestVocabulary
/// One compiled rule: when it fires, what it adds to the score or decides, and how it explains itself.
///
/// Immutable, and a class so that a copy is one reference: every verdict walks every rule, and a rule held by value
/// would retain each of its strings, its condition and its templates at every step.
public final class Rule: Sendable {
    public let id: String
    public let summary: String?
    /// Added to the score when the rule fires (may be negative; 0 for a rule that only decides).
    public let score: Double
    /// A hard decision when the rule fires.
    public let decide: Decision?
    /// The condition as written.
    public let condition: String
    /// Where the rule stands: file and line.
    public let file: String
    public let line: Int
    let evaluate: CompiledExpression.Evaluate<Bool>
    let reason: ReasonTemplate
    /// What the rule's `then:` does when it fires, in the order written.
    let actions: [RuleActionTemplate]

    init(
        id: String, summary: String?, score: Double, decide: Decision?, condition: String, file: String, line: Int,
        evaluate: @escaping CompiledExpression.Evaluate<Bool>, reason: ReasonTemplate, actions: [RuleActionTemplate]
    ) {
        self.id = id
        self.summary = summary
        self.score = score
        self.decide = decide
        self.condition = condition
        self.file = file
        self.line = line
        self.evaluate = evaluate
        self.reason = reason
        self.actions = actions
    }

    /// The names of the actions the rule's `then:` lists.
    public var actionNames: [RuleActionName] { actions.map(\.name) }

    /// Whether the rule fires on these values (a missing condition does not fire).
    public func fires(_ values: SignalValues) -> Bool {
        evaluate(values) == true
    }

    /// The rendered reason for these values.
    public func reason(_ values: SignalValues) -> String {
        reason.render(values)
    }

    /// The rule's actions for these values (those whose value is missing left out).
    func actions(_ values: SignalValues) -> [RuleAction] {
        actions.compactMap { $0.resolve(values) }
    }
}

/// Score thresholds: at or above `deny` the decision is deny, at or above `review` it is review, below it allow.
public struct DecisionThresholds: Sendable, Hashable, Codable {
    public var review: Double
    public var deny: Double

    public init(review: Double, deny: Double) {
        self.review = review
        self.deny = deny
    }

    /// Used when no rule file sets `decisions:`.
    public static let standard = DecisionThresholds(review: 50, deny: 80)

    public func decision(for score: Double) -> Decision {
        score >= deny ? .deny : score >= review ? .review : .allow
    }
}
