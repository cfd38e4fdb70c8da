public import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// One decision of the log as analysts read it: when, where and what was decided, under which rule set, which rules
/// fired and why, and the signals it was decided on. Users, IPs and devices appear only as the keyed hashes the log
/// keeps, and those are not shown.
public struct LoggedDecision: Sendable, Hashable {
    /// A rule that fired. Its score and reason are known when the rule set that decided (by version) is one this
    /// process holds, live or shadow: the reason is rendered again from the logged signals.
    public struct FiredRule: Sendable, Hashable {
        public var ruleId: String
        public var score: Double?
        public var reason: String?
    }

    public var decidedAt: Date
    public var endpoint: Endpoint
    /// The decision returned, and the rules' own (they differ in monitor mode).
    public var decision: Decision
    public var ruleDecision: Decision
    public var score: Double
    public var ruleSetVersion: String
    /// base64 key id, when the request named a key.
    public var keyId: String?
    public var fired: [FiredRule]
    /// The signal snapshot: a JSON object of signal names to values (`null` when missing), as logged.
    public var signals: String
    /// The shadow rule set's verdict on the same request, when one was in force.
    public var shadow: ShadowVerdict? = nil
}
