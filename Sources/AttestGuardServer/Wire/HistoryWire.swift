import AttestGuardEngine
import Foundation
import RiskRules
import AttestVocabulary

/// `GET /v1/apps/{appId}/keys/{keyId}/history`: the key's current receipt as the key route shows it, with its last
/// refresh attempt, and its risk metrics, newest receipt first.
struct KeyHistoryBody: Encodable {
    /// The key route's receipt, with when the last redemption attempt was made and the transient failures since the
    /// last one that settled.
    struct Receipt: Encodable {
        private enum Keys: String, CodingKey { case lastAttemptAt, failedAttempts }

        let summary: KeyBody.ReceiptSummary
        let lastAttemptAt: Date?
        let failedAttempts: Int

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(lastAttemptAt, forKey: .lastAttemptAt)
            try container.encode(failedAttempts, forKey: .failedAttempts)
        }
    }

    /// The metric of one verified receipt.
    struct RiskMetric: Encodable {
        var riskMetric: Int
        var receiptCreatedAt: Date
        var observedAt: Date
    }

    var appId: String
    var keyId: String
    var status: KeyStatus
    var receipt: Receipt?
    var riskMetrics: [RiskMetric]

    init(_ history: KeyHistory) {
        appId = history.key.appId
        keyId = history.key.keyId.base64
        status = history.key.status
        receipt = history.receipt.map {
            Receipt(summary: KeyBody.ReceiptSummary($0), lastAttemptAt: $0.lastAttemptAt, failedAttempts: $0.failedAttempts)
        }
        riskMetrics = history.riskMetrics.map { RiskMetric(riskMetric: $0.riskMetric, receiptCreatedAt: $0.receiptCreatedAt, observedAt: $0.observedAt) }
    }
}

/// `GET /v1/apps/{appId}/decisions`: a page of logged decisions, newest first, and where the next page starts.
struct DecisionPageBody: Encodable {
    /// A fired rule, as a verdict's reasons show it; score and message only when the server holds its rule set.
    struct Reason: Encodable {
        var ruleId: String
        var score: Double?
        var message: String?
    }

    struct Decision: Encodable {
        var decidedAt: Date
        var endpoint: String
        var decision: String
        var ruleDecision: String
        var score: Double
        var ruleSetVersion: String
        var keyId: String?
        var reasons: [Reason]
        var signals: [String: SnapshotValue]

        init(_ logged: LoggedDecision) {
            decidedAt = logged.decidedAt
            endpoint = logged.endpoint.rawValue
            decision = logged.decision.rawValue
            ruleDecision = logged.ruleDecision.rawValue
            score = logged.score
            ruleSetVersion = logged.ruleSetVersion
            keyId = logged.keyId
            reasons = logged.fired.map { Reason(ruleId: $0.ruleId, score: $0.score, message: $0.reason) }
            // Written by the server itself; a snapshot that does not read back shows as no signals.
            signals = (try? JSONDecoder().decode([String: SnapshotValue].self, from: Data(logged.signals.utf8))) ?? [:]
        }
    }

    var appId: String
    var from: Date
    var to: Date
    var decisions: [Decision]
    var next: String?

    init(_ page: DecisionPage) {
        appId = page.appId
        from = page.from
        to = page.to
        decisions = page.decisions.map(Decision.init)
        next = page.next?.text
    }
}
