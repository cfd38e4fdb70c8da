import AttestGuard
import Foundation
import RiskRules

/// `POST /v1/score` request body: the app and whatever the gateway knows of the request.
struct ScoreRequestBody: Decodable {
    var appId: String
    /// base64 key id of the client's App Attest key, if it has one.
    var keyId: String?
    var userId: String?
    var deviceId: String?
    var ip: String?
    var action: String?
    /// The client's own App Attest status: `supported`, `unsupported`, `throttled`, `failed`, ...
    var attestStatus: String?
    var attributes: [String: AssertedRequest.Attribute]?

    func scoreRequest() throws -> ScoreRequest {
        if let userId { try WireFields.text(userId, field: "userId", maximumLength: 256) }
        if let deviceId { try WireFields.text(deviceId, field: "deviceId", maximumLength: 256) }
        if let ip { try WireFields.text(ip, field: "ip", maximumLength: 64) }
        if let action { try WireFields.text(action, field: "action", maximumLength: 64) }
        if let attestStatus { try WireFields.text(attestStatus, field: "attestStatus", maximumLength: 32) }
        if let attributes { try WireFields.attributes(attributes, field: "attributes") }
        return ScoreRequest(
            appId: appId,
            endpoint: .score,
            keyId: try keyId.map { try WireFields.keyId($0) },
            userId: userId,
            deviceId: deviceId,
            ip: ip,
            action: action,
            attestStatus: attestStatus,
            attributes: attributes ?? [:]
        )
    }
}

/// `POST /v1/score` response body: the verdict and every signal the rule set read (`null` when missing).
struct ScoreResponseBody: Encodable {
    var decision: RiskVerdict.Decision
    var score: Double
    var reasons: [RiskVerdict.Reason]
    var ruleSetVersion: String
    var enforced: Bool
    var ruleDecision: RiskVerdict.Decision?
    var signals: [String: SignalJSON]

    init(_ outcome: RiskScorer.Outcome) {
        decision = outcome.verdict.decision
        score = outcome.verdict.score
        reasons = outcome.verdict.reasons
        ruleSetVersion = outcome.verdict.ruleSetVersion
        enforced = outcome.verdict.enforced
        ruleDecision = outcome.verdict.ruleDecision
        signals = outcome.signals.mapValues { SignalJSON($0) }
    }
}

/// A signal value in JSON: numbers and durations (seconds) as numbers, timestamps as ISO 8601 text, strings and
/// booleans as such, missing as `null`.
struct SignalJSON: Encodable {
    var value: SignalValue?

    init(_ value: SignalValue?) {
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case nil: try container.encodeNil()
        case .number(let number)?, .duration(let number)?: try container.encode(number)
        case .timestamp(let seconds)?: try container.encode(RuleValueFormat.timestamp(seconds))
        case .string(let text)?: try container.encode(text)
        case .bool(let flag)?: try container.encode(flag)
        }
    }
}
