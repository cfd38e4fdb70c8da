public import AttestVocabulary
public import Foundation

/// One logged verdict as the console counts it: when, where, the decision returned and the rules' own, the rules
/// that fired, whether the request named a key, and the shadow set's verdict when one was in force.
public struct VerdictSample: Sendable, Hashable {
    public var decidedAt: Date
    public var endpoint: Endpoint
    public var decision: Decision
    public var ruleDecision: Decision
    /// Fired rule ids, comma-separated.
    public var fired: String
    /// Whether the request named a key (an attestation, an assertion, a score request with a key id).
    public var hasKey: Bool
    public var shadow: ShadowVerdict?

    public init(
        decidedAt: Date, endpoint: Endpoint, decision: Decision, ruleDecision: Decision, fired: String, hasKey: Bool, shadow: ShadowVerdict?
    ) {
        self.decidedAt = decidedAt
        self.endpoint = endpoint
        self.decision = decision
        self.ruleDecision = ruleDecision
        self.fired = fired
        self.hasKey = hasKey
        self.shadow = shadow
    }
}

/// How many of an app's active keys carry one risk metric (`nil`: no receipt redeemed yet).
public struct RiskMetricCount: Sendable, Hashable {
    public var riskMetric: Int?
    public var keys: Int

    public init(riskMetric: Int?, keys: Int) {
        self.riskMetric = riskMetric
        self.keys = keys
    }
}
