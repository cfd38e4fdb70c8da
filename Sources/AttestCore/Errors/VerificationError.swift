public import AttestVocabulary
public import AppleReceipts

/// Why an App Attest attestation or assertion failed verification.
///
/// Each check has its own stable ``Code`` (`nonce_mismatch`, `counter_not_increasing`, ...) that the
/// HTTP API and the CLI report as is. Equality compares the code only; ``description`` is safe to log
/// and ``detail`` says which value or underlying check failed.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The stable, machine-readable name of a failed check.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The registered code this check reports.
        public let errorCode: ErrorCode
        private init(_ errorCode: ErrorCode) { self.errorCode = errorCode }

        /// The object is not well-formed CBOR.
        public static let malformedCBOR = Code(.malformedCBOR)
        /// The attestation object lacks `fmt`, `attStmt`, `x5c`, `receipt` or `authData`, or has wrong types.
        public static let malformedAttestation = Code(.malformedAttestation)
        /// `fmt` is not `apple-appattest`.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A certificate in `x5c` does not parse.
        public static let malformedCertificate = Code(.malformedCertificate)
        /// The authenticator data is too short or its attested credential data is malformed.
        public static let malformedAuthenticatorData = Code(.malformedAuthenticatorData)
        /// The bytes after the authenticator data (iOS 27's extension map) are not one bounded CBOR map of Apple's
        /// shape (``AppleAuthenticatorExtensions``).
        public static let malformedAuthenticatorExtensions = Code(.malformedAuthenticatorExtensions)
        /// A public key is not a P-256 key (leaf certificate, COSE key or a stored key).
        public static let malformedPublicKey = Code(.malformedPublicKey)
        /// The key id given by the caller is not 32 bytes.
        public static let malformedKeyId = Code(.malformedKeyId)
        /// A caller-supplied clientDataHash is not 32 bytes.
        public static let malformedClientDataHash = Code(.malformedClientDataHash)
        /// The leaf lacks the nonce extension (1.2.840.113635.100.8.2) or it has the wrong shape.
        public static let malformedNonceExtension = Code(.malformedNonceExtension)
        /// Step 1: the x5c chain does not lead to the pinned root at the verification instant.
        public static let chainInvalid = Code(.chainInvalid)
        /// Step 4: the nonce in the leaf differs from SHA-256(authData ‖ clientDataHash).
        public static let nonceMismatch = Code(.nonceMismatch)
        /// Step 5: SHA-256 of the leaf's public key differs from the key id.
        public static let keyIdMismatch = Code(.keyIdMismatch)
        /// Step 6 (and assertion step 4): the RP ID hash differs from SHA-256(App ID).
        public static let rpIdMismatch = Code(.rpIdMismatch)
        /// Step 7: the attestation's sign counter is not zero.
        public static let counterNotZero = Code(.counterNotZero)
        /// Step 8: the aaguid names an environment the caller does not accept, or none at all.
        public static let aaguidMismatch = Code(.aaguidMismatch)
        /// Step 9: the credential id differs from the key id.
        public static let credentialIdMismatch = Code(.credentialIdMismatch)
        /// The attestation's embedded receipt failed verification; ``VerificationError/receiptError`` says how.
        public static let receiptInvalid = Code(.receiptInvalid)
        /// The assertion object lacks `signature` or `authenticatorData`, or has wrong types.
        public static let malformedAssertion = Code(.malformedAssertion)
        /// The assertion signature is not a DER ECDSA signature.
        public static let malformedSignature = Code(.malformedSignature)
        /// The assertion signature does not verify with the key.
        public static let signatureInvalid = Code(.signatureInvalid)
        /// The assertion counter is not greater than the previous counter.
        public static let counterNotIncreasing = Code(.counterNotIncreasing)

        public var description: String { errorCode.description }
    }

    /// The check that failed.
    public let code: Code
    /// What exactly differed or which underlying check failed; safe to show to the developer.
    public let detail: String
    /// The receipt failure behind a ``Code/receiptInvalid``.
    public let receiptError: ReceiptError?
    private let file: String
    private let line: Int

    public init(_ code: Code, _ detail: String, receiptError: ReceiptError? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.detail = detail
        self.receiptError = receiptError
        self.file = file
        self.line = line
    }

    public var description: String { "\(code): \(detail)" }
    public var debugDescription: String { "VerificationError(\(code), \(detail)) at \(file):\(line)" }

    public static func == (lhs: VerificationError, rhs: VerificationError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
