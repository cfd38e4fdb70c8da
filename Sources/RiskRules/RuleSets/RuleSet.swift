public import AttestVocabulary
/// A loaded, compiled rule set: its version (a content hash of its files), thresholds, rules and the signals they
/// read. Immutable and `Sendable`: the server swaps whole sets on reload.
public struct RuleSet: Sendable {
    /// `sha256:` and 16 hex digits of the SHA-256 over the set's rule and list files (names and contents).
    public let version: String
    public let thresholds: DecisionThresholds
    public let rules: [Rule]
    /// The signals the rules and their reasons read.
    public let layout: SignalLayout
    /// Declared custom attributes and their types.
    public let attributes: [String: SignalType]
    /// The run-time lists the rules read (`lists:` entries with `managed: true`) and the kind each is declared.
    public let managedLists: [String: ListKind]
    /// The directory it was loaded from (empty for an in-memory set).
    public let directory: String

    /// Empty values for one evaluation at `now` (seconds since 1970) against the run-time lists in `lists`, to fill
    /// and pass to ``evaluate(_:)``.
    public func values(now: Double, lists: ManagedListSnapshot = .empty) -> SignalValues {
        SignalValues(layout: layout, now: now, lists: lists)
    }

    /// Runs every rule. The score is the sum of the modifiers of the rules that fire. The decision: `deny` if a
    /// firing rule decides deny; else `allow` if one decides allow; else the stricter of the score's decision by the
    /// thresholds and `review` when a firing rule decides review.
    public func evaluate(_ values: SignalValues) -> RuleEvaluation {
        var score = 0.0
        var fired: [RuleEvaluation.Fired] = []
        var hard: (deny: String?, allow: String?, review: String?) = (nil, nil, nil)
        for rule in rules where rule.fires(values) {
            score += rule.score
            var firing = RuleEvaluation.Fired(id: rule.id, score: rule.score, decide: rule.decide, reason: rule.reason(values))
            if !rule.actions.isEmpty { firing.actions = rule.actions(values) }
            fired.append(firing)
            switch rule.decide {
            case .deny?: hard.deny = hard.deny ?? rule.id
            case .allow?: hard.allow = hard.allow ?? rule.id
            case .review?: hard.review = hard.review ?? rule.id
            case nil: break
            }
        }
        let byScore = thresholds.decision(for: score)
        let (decision, decidedBy): (Decision, String?)
        if let id = hard.deny {
            (decision, decidedBy) = (.deny, id)
        } else if let id = hard.allow {
            (decision, decidedBy) = (.allow, id)
        } else if let id = hard.review, byScore == .allow {
            (decision, decidedBy) = (.review, id)
        } else {
            (decision, decidedBy) = (byScore, nil)
        }
        return RuleEvaluation(score: score, decision: decision, decidedBy: decidedBy, fired: fired, ruleSetVersion: version)
    }
}

/// The outcome of one evaluation, with an explanation.
public struct RuleEvaluation: Sendable, Hashable, Encodable {
    /// A rule that fired: what it added, what it decided, and its rendered reason.
    public struct Fired: Sendable, Hashable, Encodable {
        public var id: String
        public var score: Double
        public var decide: Decision?
        public var reason: String
        /// What the rule's `then:` asks for, with its values; `nil` for a rule without actions.
        public var actions: [RuleAction]? = nil

        public init(id: String, score: Double, decide: Decision?, reason: String, actions: [RuleAction]? = nil) {
            self.id = id
            self.score = score
            self.decide = decide
            self.reason = reason
            self.actions = actions
        }
    }

    public var score: Double
    public var decision: Decision
    /// The rule whose hard decision won, or `nil` when the score decided.
    public var decidedBy: String?
    public var fired: [Fired]
    public var ruleSetVersion: String

    /// Every action the fired rules ask for, with the rule that asks, in the rules' order.
    public var actions: [(ruleId: String, action: RuleAction)] {
        fired.flatMap { firing in (firing.actions ?? []).map { (firing.id, $0) } }
    }

    public init(score: Double, decision: Decision, decidedBy: String?, fired: [Fired], ruleSetVersion: String) {
        self.score = score
        self.decision = decision
        self.decidedBy = decidedBy
        self.fired = fired
        self.ruleSetVersion = ruleSetVersion
    }
}
