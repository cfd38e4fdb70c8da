public import AttestVocabulary
public import Foundation

/// Why the engine refused a request: a stable snake_case code, a human message, and the class of failure that
/// decides the HTTP status (the engine itself knows nothing of HTTP).
public struct EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of a failure.
    public enum Kind: Sendable, Hashable {
        /// The request is malformed (400).
        case invalidInput
        /// The app or key does not exist (404).
        case notFound
        /// The request conflicts with state: a used challenge, an accepted assertion, a registered key (409).
        case conflict
        /// The caller's condition on the stored state no longer holds: another change came first (412).
        case preconditionFailed
        /// A verification check failed (422).
        case verificationFailed
        /// Too many requests; retry at the given instant (429).
        case rateLimited(retryAt: Date)
        /// The store cannot answer; retry later (503).
        case unavailable
        /// A service the engine calls (Apple) refused the server itself or answered something unreadable: a
        /// configuration problem or an upstream bug, not the caller's (502).
        case upstreamFailed
        /// A service the engine calls (Apple) is not configured, unreachable or failing; retry at the given
        /// instant when one is set (503).
        case upstreamUnavailable(retryAt: Date?)
    }

    public var code: ErrorCode
    public var message: String
    public var kind: Kind

    public init(_ kind: Kind, code: ErrorCode, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// A check the object failed, or a replay: counted as `failed_verifications` for velocity. Malformed input,
    /// unknown apps, rate limits and outages are not.
    var countsAsFailedVerification: Bool {
        switch kind {
        case .verificationFailed, .conflict: true
        default: false
        }
    }

    static func invalid(_ code: ErrorCode, _ message: String) -> EngineError {
        EngineError(.invalidInput, code: code, message)
    }

    static func verification(_ code: ErrorCode, _ message: String) -> EngineError {
        EngineError(.verificationFailed, code: code, message)
    }
}
