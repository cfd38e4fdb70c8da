public import AttestVocabulary
/// The risk verdict returned with every attestation, assertion and score request: a decision, a score, the
/// reasons, and the version of the rule set that produced it. In an app's `monitor` mode the decision is always
/// `allow`, `enforced` is false and `ruleDecision` says what the rules decided.
public struct RiskVerdict: Sendable, Hashable, Codable {
    /// One rule's contribution.
    public struct Reason: Sendable, Hashable, Codable {
        public var ruleId: String
        public var score: Double
        public var message: String

        public init(ruleId: String, score: Double, message: String) {
            self.ruleId = ruleId
            self.score = score
            self.message = message
        }
    }

    public var decision: Decision
    public var score: Double
    public var reasons: [Reason]
    public var ruleSetVersion: String
    /// False in monitor mode: the decision is advice that was not enforced.
    public var enforced: Bool
    /// What the rules decided, when it differs from `decision` because the app only monitors.
    public var ruleDecision: Decision?

    public init(decision: Decision, score: Double, reasons: [Reason], ruleSetVersion: String, enforced: Bool = true, ruleDecision: Decision? = nil) {
        self.decision = decision
        self.score = score
        self.reasons = reasons
        self.ruleSetVersion = ruleSetVersion
        self.enforced = enforced
        self.ruleDecision = ruleDecision
    }

    /// The verdict before any rule set is loaded.
    public static let defaultAllow = RiskVerdict(decision: .allow, score: 0, reasons: [], ruleSetVersion: "none")
}
