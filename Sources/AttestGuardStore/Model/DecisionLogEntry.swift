public import AttestVocabulary
public import Foundation

/// One logged verdict: who and what (hashed where the contract says so), the decision returned and the rules'
/// own, the score, the rule-set version, the fired rules and the signal snapshot (JSON, signal name to value).
public struct DecisionLogEntry: Sendable, Hashable {
    /// Assigned by the store (0 before it is written); orders entries decided at the same instant.
    public var sequence: Int64 = 0
    public var appId: String
    public var decidedAt: Date
    public var endpoint: Endpoint
    /// base64 key id, when the request named a key.
    public var keyId: String?
    /// Keyed hashes.
    public var userHash: String?
    public var ipHash: String?
    /// The keyed hash of the request's device id (none before schema 16).
    public var deviceHash: String?
    /// The decision returned, and the rules' own (they differ in monitor mode).
    public var decision: Decision
    public var ruleDecision: Decision
    public var score: Double
    public var ruleSetVersion: String
    /// Fired rule ids, comma-separated.
    public var fired: String
    /// JSON object: signal name to value (`null` when missing).
    public var signals: String
    /// The shadow rule set's evaluation of the same request, when one was in force (none before schema 18).
    public var shadow: ShadowVerdict?
    /// The id of the HTTP request the verdict answered (`X-Request-Id`), by which a label names the decision (none
    /// before schema 19, nor for a verdict made off a request).
    public var requestId: String?

    public init(
        appId: String, decidedAt: Date, endpoint: Endpoint, keyId: String?, userHash: String?, ipHash: String?, deviceHash: String? = nil,
        decision: Decision, ruleDecision: Decision, score: Double, ruleSetVersion: String, fired: String, signals: String,
        shadow: ShadowVerdict? = nil, requestId: String? = nil
    ) {
        self.appId = appId
        self.decidedAt = decidedAt
        self.endpoint = endpoint
        self.keyId = keyId
        self.userHash = userHash
        self.ipHash = ipHash
        self.deviceHash = deviceHash
        self.decision = decision
        self.ruleDecision = ruleDecision
        self.score = score
        self.ruleSetVersion = ruleSetVersion
        self.fired = fired
        self.signals = signals
        self.shadow = shadow
        self.requestId = requestId
    }
}

/// What the shadow rule set decided on a logged request: its decision, its version and the ids of the rules that
/// fired (comma-separated). Logged beside the live verdict, never enforced.
public struct ShadowVerdict: Sendable, Hashable {
    public var decision: Decision
    public var ruleSetVersion: String
    public var fired: String

    public init(decision: Decision, ruleSetVersion: String, fired: String) {
        self.decision = decision
        self.ruleSetVersion = ruleSetVersion
        self.fired = fired
    }
}
