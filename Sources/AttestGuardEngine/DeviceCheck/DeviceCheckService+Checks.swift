import AttestVocabulary
import AppleServices
import AttestCore
import Foundation
import AttestGuardStore
extension DeviceCheckService {
    /// A device token: 1 to ``maximumDeviceTokenLength`` characters of base64 (either alphabet).
    static func check(deviceToken: String) throws(EngineError) {
        guard !deviceToken.isEmpty else {
            throw EngineError.invalid(.missingField, "deviceToken is required")
        }
        guard deviceToken.utf8.count <= maximumDeviceTokenLength else {
            throw EngineError.invalid(.invalidField, "deviceToken is longer than \(maximumDeviceTokenLength) characters")
        }
        guard let bytes = Base64Text.decodeEither(deviceToken), !bytes.isEmpty else {
            throw EngineError.invalid(.malformedBase64, "deviceToken is not base64")
        }
    }

    /// A subject: an identifier like a user id; a key id is the standard base64 of 32 bytes (44 characters), so
    /// that the bits are found again under the key id every other route writes.
    static func check(_ subject: DeviceCheckSubject) throws(EngineError) {
        _ = try Identifier(subject.value, field: "subject.id")
        if subject.kind == .key {
            do {
                _ = try KeyId(base64: subject.value, field: "subject.id")
            } catch {
                throw EngineError.invalid(.invalidField, "subject.id of kind key must be the standard base64 of a 32-byte key id (44 characters)")
            }
        }
    }

    /// The value, or the engine's view of Apple's failure.
    @discardableResult
    static func unwrap<Value>(_ result: Result<Value, DeviceCheckFailure>, deviceToken: String, now: Date) throws(EngineError) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw engineError(failure, deviceToken: deviceToken, now: now)
        }
    }

    /// How an Apple failure reaches the caller. A refused device token (400) is the caller's problem (422); a
    /// refused provider token, 403 or 405 is the server's configuration (502); throttling is 429 and outages
    /// 503, both with a retry instant ``retryAfter`` ahead; an unreadable answer is 502. Messages carry Apple's
    /// status and text, never the device token.
    static func engineError(_ failure: DeviceCheckFailure, deviceToken: String, now: Date) -> EngineError {
        let code = failure.code.errorCode
        let status = failure.status.map { " (\($0))" } ?? ""
        let detail = failure.detail.replacingOccurrences(of: deviceToken, with: "<device token>")
        let retryAt = now.addingTimeInterval(retryAfter)
        switch failure.code {
        case .badRequest:
            return EngineError(.verificationFailed, code: code, "Apple refused the device token or request\(status): \(detail)")
        case .unauthorized, .forbidden, .methodNotAllowed:
            return EngineError(.upstreamFailed, code: code, "Apple refused the server's DeviceCheck request\(status); check the apple.* credentials (team id, key id, DeviceCheck enabled)")
        case .throttled:
            return EngineError(.rateLimited(retryAt: retryAt), code: code, "Apple throttled DeviceCheck requests\(status)")
        case .serverError, .timedOut, .connectionFailed:
            return EngineError(.upstreamUnavailable(retryAt: retryAt), code: code, "Apple DeviceCheck is unavailable\(status): \(detail)")
        default:
            return EngineError(.upstreamFailed, code: code, "Apple DeviceCheck answered unexpectedly\(status)")
        }
    }
}
