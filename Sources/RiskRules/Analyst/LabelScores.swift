public import AttestVocabulary

/// How well rules catch what the fraud team labelled, over the labelled decisions of a backtest: per rule, how many
/// labelled decisions it fired on and how many of those were fraud (its precision), out of all fraud (its recall);
/// per rule set (the logged one, "before", and the candidate, "after"), how the fraud- and legitimate-labelled
/// decisions were decided, and the precision and recall of `deny` and of `deny` or `review`.
public struct LabelScores: Sendable, Hashable {
    /// One rule's hits on labelled decisions.
    public struct RuleScore: Sendable, Hashable {
        public var firedLabelled = 0
        public var firedFraud = 0

        public init(firedLabelled: Int = 0, firedFraud: Int = 0) {
            self.firedLabelled = firedLabelled
            self.firedFraud = firedFraud
        }
    }

    /// How one rule set decided the labelled decisions: `decided[label][decision]`.
    public struct SetScore: Sendable, Hashable {
        public var decided: [FraudLabel: [Decision: Int]] = [:]

        public init(decided: [FraudLabel: [Decision: Int]] = [:]) {
            self.decided = decided
        }

        public func count(_ label: FraudLabel, _ decision: Decision) -> Int { decided[label]?[decision] ?? 0 }

        /// Of the labelled decisions this set decided one of `decisions`, the share that were fraud (nil: none).
        public func precision(of decisions: Set<Decision>) -> Double? {
            let fraud = decisions.reduce(0) { $0 + count(.fraud, $1) }
            let all = fraud + decisions.reduce(0) { $0 + count(.legitimate, $1) }
            return all == 0 ? nil : Double(fraud) / Double(all)
        }

        /// Of the fraud-labelled decisions, the share this set decided one of `decisions` (nil: no fraud).
        public func recall(of decisions: Set<Decision>) -> Double? {
            let total = Decision.allCases.reduce(0) { $0 + count(.fraud, $1) }
            let caught = decisions.reduce(0) { $0 + count(.fraud, $1) }
            return total == 0 ? nil : Double(caught) / Double(total)
        }
    }

    /// The decisions refused outright, and those refused or held.
    public static let deny: Set<Decision> = [.deny]
    public static let denyOrReview: Set<Decision> = [.deny, .review]

    public var fraud = 0
    public var legitimate = 0
    /// Per rule of the logged set (the rules that fired when it was decided), and of the candidate.
    public var rulesBefore: [String: RuleScore] = [:]
    public var rulesAfter: [String: RuleScore] = [:]
    public var before = SetScore()
    public var after = SetScore()

    public init() {}

    public var labelled: Int { fraud + legitimate }

    /// Counts one labelled decision: how the logged set and the candidate decided it, and the rules each fired.
    public mutating func record(_ label: FraudLabel, before: Decision, firedBefore: [String], after: Decision, firedAfter: [String]) {
        switch label {
        case .fraud: fraud += 1
        case .legitimate: legitimate += 1
        }
        self.before.decided[label, default: [:]][before, default: 0] += 1
        self.after.decided[label, default: [:]][after, default: 0] += 1
        for rule in Set(firedBefore) { Self.count(rule, label, in: &rulesBefore) }
        for rule in Set(firedAfter) { Self.count(rule, label, in: &rulesAfter) }
    }

    /// The rule's precision: of the labelled decisions it fired on, the share that were fraud (nil: it fired on none).
    public static func precision(_ score: RuleScore) -> Double? {
        score.firedLabelled == 0 ? nil : Double(score.firedFraud) / Double(score.firedLabelled)
    }

    /// The rule's recall: of all fraud-labelled decisions, the share it fired on (nil: no fraud labelled).
    public func recall(_ score: RuleScore) -> Double? {
        fraud == 0 ? nil : Double(score.firedFraud) / Double(fraud)
    }

    private static func count(_ rule: String, _ label: FraudLabel, in scores: inout [String: RuleScore]) {
        scores[rule, default: RuleScore()].firedLabelled += 1
        if label == .fraud { scores[rule, default: RuleScore()].firedFraud += 1 }
    }
}
