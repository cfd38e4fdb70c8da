public import Foundation
import AttestVocabulary

/// What a server answered one request: the status and the body parsed as a JSON object (empty when the body is not
/// one). Read by personas to tell a verdict from a typed error.
public struct APIAnswer: Sendable {
    public var status: Int
    /// The body as JSON text, kept so that values cross tasks as `Sendable` text and are parsed where read.
    public var body: Data
    /// The request's id as the server echoed it (`X-Request-Id`): the id its decision is logged under.
    public var requestId: String?

    public init(status: Int, body: Data, requestId: String? = nil) {
        self.status = status
        self.body = body
        self.requestId = requestId
    }

    /// The body as a JSON object, or empty.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    /// 2xx.
    public var succeeded: Bool { (200..<300).contains(status) }

    /// The error body's code, when the body is a typed error.
    public var errorCode: String? {
        (json["error"] as? [String: Any])?["code"] as? String
    }

    /// The verdict in the body: the `verdict` object of an attestation or assertion answer, or the score answer
    /// itself (whose top level is the verdict).
    public var verdict: ObservedVerdict? {
        let object = json
        let verdict = object["verdict"] as? [String: Any] ?? object
        guard let text = verdict["decision"] as? String, let decision = Decision(rawValue: text) else { return nil }
        let reasons = (verdict["reasons"] as? [[String: Any]] ?? []).compactMap { $0["ruleId"] as? String }
        return ObservedVerdict(decision: decision, score: verdict["score"] as? Double ?? 0, ruleIds: reasons, requestId: requestId)
    }

    /// What the answer was, as a persona's outcome.
    public var outcome: ObservedOutcome {
        if succeeded, let verdict { return .verdict(verdict) }
        if let errorCode { return .error(status: status, code: errorCode) }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return .unexpected("HTTP \(status): \(text)")
    }
}
