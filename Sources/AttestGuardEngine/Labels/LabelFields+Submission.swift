public import AttestGuardWire
import Foundation

extension LabelFields {
    /// The submission these fields make (`POST /v1/labels`, a line of `attestguard labels import`): empty strings
    /// are absent, `labelledAt` is read as RFC 3339.
    /// - Throws: `invalid_field` for a time that is not RFC 3339.
    public func submission() throws(EngineError) -> LabelSubmission {
        var time: Date?
        if let labelledAt, !labelledAt.isEmpty {
            guard let parsed = RFC3339.parse(labelledAt) else {
                throw EngineError(.invalidInput, code: .invalidField, "labelledAt must be an RFC 3339 time such as 2026-11-22T12:00:00Z")
            }
            time = parsed
        }
        func present(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
        return LabelSubmission(
            appId: appId, requestId: present(requestId), keyId: present(keyId), userId: present(userId), deviceId: present(deviceId),
            label: label, source: source, labelledAt: time
        )
    }
}
