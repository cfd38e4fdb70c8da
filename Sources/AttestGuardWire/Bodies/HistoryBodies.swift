public import Foundation

/// `GET /v1/apps/{appId}/keys/{keyId}/history` response body (and `attestguard keys history --json`): the key's
/// current receipt as the key route shows it, with its last refresh attempt, and its risk metrics, newest receipt
/// first.
public struct KeyHistoryBody: Codable, Sendable, Hashable {
    /// The key route's receipt, with when the last redemption attempt was made and the transient failures since the
    /// last one that settled: one JSON object.
    public struct Receipt: Codable, Sendable, Hashable {
        private enum Keys: String, CodingKey { case lastAttemptAt, failedAttempts }

        public var summary: KeyBody.ReceiptSummary
        public var lastAttemptAt: Date?
        public var failedAttempts: Int

        public init(summary: KeyBody.ReceiptSummary, lastAttemptAt: Date?, failedAttempts: Int) {
            self.summary = summary
            self.lastAttemptAt = lastAttemptAt
            self.failedAttempts = failedAttempts
        }

        public init(from decoder: any Decoder) throws {
            summary = try KeyBody.ReceiptSummary(from: decoder)
            let container = try decoder.container(keyedBy: Keys.self)
            lastAttemptAt = try container.decodeIfPresent(Date.self, forKey: .lastAttemptAt)
            failedAttempts = try container.decode(Int.self, forKey: .failedAttempts)
        }

        public func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(lastAttemptAt, forKey: .lastAttemptAt)
            try container.encode(failedAttempts, forKey: .failedAttempts)
        }
    }

    /// The metric of one verified receipt.
    public struct RiskMetric: Codable, Sendable, Hashable {
        public var riskMetric: Int
        public var receiptCreatedAt: Date
        public var observedAt: Date

        public init(riskMetric: Int, receiptCreatedAt: Date, observedAt: Date) {
            self.riskMetric = riskMetric
            self.receiptCreatedAt = receiptCreatedAt
            self.observedAt = observedAt
        }
    }

    public var appId: String
    public var keyId: String
    /// `active`, `superseded` or `revoked`.
    public var status: String
    public var receipt: Receipt?
    public var riskMetrics: [RiskMetric]

    public init(appId: String, keyId: String, status: String, receipt: Receipt?, riskMetrics: [RiskMetric]) {
        self.appId = appId
        self.keyId = keyId
        self.status = status
        self.receipt = receipt
        self.riskMetrics = riskMetrics
    }
}

/// `GET /v1/apps/{appId}/decisions` response body (and `attestguard decisions --json`): a page of logged decisions,
/// newest first, and where the next page starts.
public struct DecisionPageBody: Codable, Sendable, Hashable {
    /// A fired rule, as a verdict's reasons show it; score and message only when the server holds its rule set.
    public struct Reason: Codable, Sendable, Hashable {
        public var ruleId: String
        public var score: Double?
        public var message: String?

        public init(ruleId: String, score: Double?, message: String?) {
            self.ruleId = ruleId
            self.score = score
            self.message = message
        }
    }

    /// One logged decision.
    public struct Decision: Codable, Sendable, Hashable {
        public var decidedAt: Date
        public var endpoint: String
        public var decision: String
        public var ruleDecision: String
        public var score: Double
        public var ruleSetVersion: String
        public var keyId: String?
        public var reasons: [Reason]
        /// Each signal the rules read and the build signals every decision logs, `null` where it was missing.
        public var signals: [String: ScalarValue?]

        public init(
            decidedAt: Date, endpoint: String, decision: String, ruleDecision: String, score: Double, ruleSetVersion: String,
            keyId: String?, reasons: [Reason], signals: [String: ScalarValue?]
        ) {
            self.decidedAt = decidedAt
            self.endpoint = endpoint
            self.decision = decision
            self.ruleDecision = ruleDecision
            self.score = score
            self.ruleSetVersion = ruleSetVersion
            self.keyId = keyId
            self.reasons = reasons
            self.signals = signals
        }
    }

    public var appId: String
    public var from: Date
    public var to: Date
    public var decisions: [Decision]
    /// The cursor of the next page, absent on the last.
    public var next: String?

    public init(appId: String, from: Date, to: Date, decisions: [Decision], next: String?) {
        self.appId = appId
        self.from = from
        self.to = to
        self.decisions = decisions
        self.next = next
    }
}
