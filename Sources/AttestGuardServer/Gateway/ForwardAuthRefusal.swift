import AttestGuardWire
import AttestGuardEngine
import AttestVocabulary
import Foundation
import Hummingbird
import NIOCore

/// Why forward-auth refuses a request: the precise outcome (the status and error body `POST /v1/assertions` or the
/// gateway checks give) and the status the gateway can pass on. nginx's `auth_request` turns anything but 2xx, 401
/// and 403 into a 500, so the answer's status is 401 (the app's assertion is missing or did not verify: it may get a
/// new challenge, or re-attest on `key_not_found`/`key_revoked`) or 403 (refused for any other reason), and the
/// precise status travels in `X-AttestGuard-Status` for the gateway to restore.
struct ForwardAuthRefusal: Error, Sendable {
    enum Answer: Sendable {
        /// 401 with `WWW-Authenticate: AppAttest error="<code>"`.
        case unauthorized
        /// 403.
        case forbidden
    }

    var precise: APIError
    var answer: Answer
    /// The verdict that refused the request, for the verdict headers.
    var verdict: ForwardAuthVerdict?

    /// A problem with what the gateway sent: 400, answered 403.
    static func gateway(_ code: ErrorCode, _ message: String) -> ForwardAuthRefusal {
        ForwardAuthRefusal(precise: .badRequest(code, message), answer: .forbidden)
    }

    /// A problem with the app's App Attest headers: 400, answered 401.
    static func app(_ code: ErrorCode, _ message: String) -> ForwardAuthRefusal {
        ForwardAuthRefusal(precise: .badRequest(code, message), answer: .unauthorized)
    }

    /// An engine refusal of the assertion: its contract status, answered 401 when the app's credential is at fault
    /// (malformed, unknown key, replay, failed check) and 403 otherwise (unknown app, a build the app's policy
    /// refuses, rate limits, outages).
    init(_ error: EngineError, now: Date) {
        self.init(precise: APIError(error, now: now), answer: Self.isCredentialFault(error) ? .unauthorized : .forbidden)
    }

    /// Whether the app's credential is at fault: malformed, an unknown key, a replay or a failed check.
    static func isCredentialFault(_ error: EngineError) -> Bool {
        switch error.kind {
        case .invalidInput, .conflict: true
        // A build the policy refuses signed a valid assertion: a new challenge or key would be refused the same way.
        case .verificationFailed: !buildPolicyRefusals.contains(error.code)
        case .notFound: error.code == .keyNotFound
        case .rateLimited, .unavailable, .upstreamFailed, .upstreamUnavailable, .preconditionFailed: false
        }
    }

    /// Whether the request failed a check of what it sent: a credential fault, or a build the app's build policy
    /// refuses. Monitor mode passes these on `score`, `token` and `require-for-rollout` routes, and they count as `invalid`.
    static func failsACheck(_ error: EngineError) -> Bool {
        isCredentialFault(error) || buildPolicyRefusals.contains(error.code)
    }

    /// The build-policy codes (``AttestGuardEngine/AppBuildPolicy``): the app must be updated or reinstalled.
    static let buildPolicyRefusals = Set(AppBuildPolicy.refusalCodes)

    init(precise: APIError, answer: Answer, verdict: ForwardAuthVerdict? = nil) {
        self.precise = precise
        self.answer = answer
        self.verdict = verdict
    }

    /// The answer: the outward status, the error body, `X-AttestGuard-Status` and `X-AttestGuard-Error` (the code),
    /// `Retry-After` where the precise outcome has one, and the verdict headers of a refusing verdict.
    func response() -> Response {
        var headers = verdict?.headers ?? HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        headers[ForwardAuthHeaders.status] = String(precise.status.code)
        headers[ForwardAuthHeaders.error] = precise.code.rawValue
        if let seconds = precise.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        let status: HTTPResponse.Status
        switch answer {
        case .unauthorized:
            status = .unauthorized
            headers[.wwwAuthenticate] = #"AppAttest error="\#(precise.code.rawValue)""#
        case .forbidden:
            status = .forbidden
        }
        let body = (try? JSONResponse.encoder.encode(ErrorResponseBody(code: precise.code.rawValue, message: precise.message))) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
