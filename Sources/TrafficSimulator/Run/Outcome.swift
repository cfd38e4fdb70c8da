public import AttestVocabulary

/// A verdict as the server answered it: the decision, the score and the ids of the rules that fired, and the request
/// id the server logged it under (which the demo's fraud labels name). Two verdicts alike but for their request ids
/// are the same outcome.
public struct ObservedVerdict: Sendable, Hashable {
    public var decision: Decision
    public var score: Double
    public var ruleIds: [String]
    public var requestId: String?

    public init(decision: Decision, score: Double, ruleIds: [String], requestId: String? = nil) {
        self.decision = decision
        self.score = score
        self.ruleIds = ruleIds
        self.requestId = requestId
    }

    public static func == (left: ObservedVerdict, right: ObservedVerdict) -> Bool {
        left.decision == right.decision && left.score == right.score && left.ruleIds == right.ruleIds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(decision)
        hasher.combine(score)
        hasher.combine(ruleIds)
    }
}

/// What one checked request of a persona got.
public enum ObservedOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A success carrying a verdict.
    case verdict(ObservedVerdict)
    /// A typed error body.
    case error(status: Int, code: String)
    /// Anything else: no verdict, an untyped error, a transport failure, a step that could not run.
    case unexpected(String)

    public var description: String {
        switch self {
        case .verdict(let verdict):
            let score = verdict.score.rounded() == verdict.score ? String(Int(verdict.score)) : String(verdict.score)
            return "\(verdict.decision) (score \(score))"
        case .error(let status, let code): return "\(status) \(code)"
        case .unexpected(let text): return text
        }
    }

    /// The verdict, if the request got one.
    public var verdict: ObservedVerdict? {
        if case .verdict(let verdict) = self { return verdict }
        return nil
    }

    /// The fired rules of a verdict, else none.
    public var ruleIds: [String] {
        if case .verdict(let verdict) = self { return verdict.ruleIds }
        return []
    }
}

/// What a persona's checked requests must get with the shipped rules.
public enum ExpectedOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A verdict with this decision, each of these rules among those that fired and, when given, this score.
    case verdict(Decision, firing: [String] = [], score: Double? = nil)
    /// A typed error.
    case error(status: Int, code: ErrorCode)

    public func isMet(by outcome: ObservedOutcome) -> Bool {
        switch (self, outcome) {
        case (.verdict(let decision, let firing, let score), .verdict(let verdict)):
            return verdict.decision == decision && firing.allSatisfy(verdict.ruleIds.contains) && (score.map { $0 == verdict.score } ?? true)
        case (.error(let status, let code), .error(let gotStatus, let gotCode)):
            return status == gotStatus && code.rawValue == gotCode
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .verdict(let decision, let firing, let score):
            var text = decision.rawValue
            if let score { text += " (score \(Int(score)))" }
            if !firing.isEmpty { text += ", " + firing.joined(separator: " + ") }
            return text
        case .error(let status, let code): return "\(status) \(code)"
        }
    }
}
