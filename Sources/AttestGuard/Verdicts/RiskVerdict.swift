/// The risk verdict returned with every attestation and assertion: a decision, a score, the reasons, and the
/// version of the rule set that produced it. Until the rule engine exists every verdict is ``allow``.
public struct RiskVerdict: Sendable, Hashable, Codable {
    public enum Decision: String, Sendable, Hashable, Codable, CaseIterable {
        case allow
        case review
        case deny
    }

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

    public init(decision: Decision, score: Double, reasons: [Reason], ruleSetVersion: String) {
        self.decision = decision
        self.score = score
        self.reasons = reasons
        self.ruleSetVersion = ruleSetVersion
    }

    /// The verdict before any rule set is loaded.
    public static let defaultAllow = RiskVerdict(decision: .allow, score: 0, reasons: [], ruleSetVersion: "none")
}
