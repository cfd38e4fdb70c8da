/// Why the client could not sign or send a request, with a stable code. A refusal of the protected request itself
/// is not an error: ``AttestGuardClient/send(_:)`` returns the gateway's answer, except a revoked key.
public struct AttestGuardClientError: Error, Sendable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case requestWithoutURL = "request_without_url"
            case bodyStreamUnsupported = "body_stream_unsupported"
            case keyRevoked = "key_revoked"
            case hashConventionMismatch = "hash_convention_mismatch"
            case attestationFailed = "attestation_failed"
            case assertionFailed = "assertion_failed"
            case refused = "refused"
            case unexpectedResponse = "unexpected_response"
            case transport = "transport"
            case keyStore = "key_store"
            case mayHaveSucceeded = "may_have_succeeded"
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The request has no URL.
        public static let requestWithoutURL = Code(.requestWithoutURL)
        /// The request's body is a stream (`httpBodyStream`): it cannot be hashed before it is sent. Set `httpBody`.
        public static let bodyStreamUnsupported = Code(.bodyStreamUnsupported)
        /// AttestGuard revoked this user's key on this device. Final: the client does not attest around it.
        public static let keyRevoked = Code(.keyRevoked)
        /// AttestGuard refused the attestation with `nonce_mismatch`: the client's ``AttestationHashConvention``
        /// is probably not the app's on the server.
        public static let hashConventionMismatch = Code(.hashConventionMismatch)
        /// App Attest on the device could not attest a key (``underlying`` says why).
        public static let attestationFailed = Code(.attestationFailed)
        /// App Attest on the device could not sign the request (``underlying`` says why).
        public static let assertionFailed = Code(.assertionFailed)
        /// The gateway or AttestGuard refused a call of the client's own (a challenge, an attestation): ``answer``.
        public static let refused = Code(.refused)
        /// An app-facing route answered 2xx with a body the client cannot read.
        public static let unexpectedResponse = Code(.unexpectedResponse)
        /// No response came (``underlying`` is the transport's error).
        public static let transport = Code(.transport)
        /// The Keychain (the ``KeyIdStore``) failed.
        public static let keyStore = Code(.keyStore)
        /// A request that is not sent twice (a `POST`) was refused `assertion_already_accepted`: a copy of this very
        /// signed request reached the gateway before and was accepted (a retry below the client, or a first copy
        /// whose answer was lost, say as a 503 after the commit). Treat it as possibly done: check its effect (the
        /// order, the claim) before asking the user to do it again. ``answer`` is the refusal.
        public static let mayHaveSucceeded = Code(.mayHaveSucceeded)

        public var description: String { value.rawValue }
    }

    /// What went wrong, for the app to act on.
    public let code: Code
    /// What went wrong in words, for logs.
    public let message: String
    /// The gateway's answer, for ``Code/refused``, ``Code/keyRevoked``, ``Code/hashConventionMismatch`` and
    /// ``Code/mayHaveSucceeded``.
    public let answer: ServerAnswer?
    /// The error underneath, for ``Code/transport``, ``Code/keyStore`` and the App Attest failures.
    public let underlying: (any Error)?

    /// An error of `code`, with the gateway's answer or the error underneath where there is one.
    public init(_ code: Code, _ message: String, answer: ServerAnswer? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.answer = answer
        self.underlying = underlying
    }

    public var description: String { "\(code): \(message)" }
}
