import AttestGuardEngine
import AttestGuardWire
import Foundation
import RiskRules

extension ScoreRequestBody {
    /// The engine's request for this body, every field checked.
    func scoreRequest() throws -> ScoreRequest {
        let userId = try userId.map { text throws(EngineError) in try Identifier(text, field: "userId") }
        let deviceId = try deviceId.map { text throws(EngineError) in try Identifier(text, field: "deviceId") }
        if let action { try WireFields.text(action, field: "action", maximumLength: 64) }
        if let attestStatus { try WireFields.text(attestStatus, field: "attestStatus", maximumLength: 32) }
        if let attributes { try WireFields.attributes(attributes, field: "attributes") }
        return ScoreRequest(
            appId: appId,
            endpoint: .score,
            keyId: try keyId.map { text throws(EngineError) in try KeyId(base64: text) },
            userId: userId,
            deviceId: deviceId,
            ip: try ClientIP.field(ip, named: "ip"),
            action: action,
            attestStatus: attestStatus,
            attributes: attributes ?? [:]
        )
    }
}

/// `POST /v1/score` response body: the verdict and every signal the rule set read (`null` when missing), keys
/// sorted. Numbers and durations (seconds) are numbers, timestamps ISO 8601 text, strings and booleans as such.
///
/// Written by hand (``JSONText``): it is the largest document of the hottest route, and `JSONEncoder` with sorted
/// keys is a large part of a verdict's CPU cost.
enum ScoreResponseJSON {
    static func bytes(verdict: RiskVerdict, signals: [SignalEntry], keys: SignalKeys? = nil) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(VerdictJSON.estimatedSize(of: verdict) + 48 * signals.count)
        output.append(UInt8(ascii: "{"))
        VerdictJSON.appendMembers(of: verdict, to: &output)
        JSONText.appendKey("signals", to: &output)
        JSONText.appendSignals(signals, keys: keys, timestamps: .iso8601, to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
