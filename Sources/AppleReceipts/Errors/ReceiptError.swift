public import AttestVocabulary

/// Why an App Attest receipt failed to parse or verify.
///
/// Each check has its own stable ``Code``; equality compares the code only. ``description`` is safe to
/// log, ``detail`` names the value or underlying check that failed.
public struct ReceiptError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The stable, machine-readable name of a failed receipt check.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The registered code this check reports.
        public let errorCode: ErrorCode
        private init(_ errorCode: ErrorCode) { self.errorCode = errorCode }

        /// The bytes are not a CMS SignedData envelope with attached content.
        public static let malformedReceipt = Code(.malformedReceipt)
        /// The signed content is not a SET OF receipt fields, or a field's value has the wrong form.
        public static let malformedPayload = Code(.malformedReceiptPayload)
        /// A field the receipt must carry is absent.
        public static let fieldMissing = Code(.receiptFieldMissing)
        /// The CMS signature (or its digest) does not verify with the signer certificate.
        public static let signatureInvalid = Code(.receiptSignatureInvalid)
        /// The signer's chain does not lead to the pinned receipt root at the verification instant.
        public static let chainInvalid = Code(.receiptChainInvalid)
        /// Field 2 differs from the expected App ID.
        public static let appIdMismatch = Code(.receiptAppIdMismatch)
        /// The key of the certificate in field 3 differs from the expected public key.
        public static let publicKeyMismatch = Code(.receiptPublicKeyMismatch)
        /// Field 6 is not the expected receipt type.
        public static let typeMismatch = Code(.receiptTypeMismatch)
        /// Field 4 of an ATTEST receipt differs from the attestation's clientDataHash.
        public static let clientHashMismatch = Code(.receiptClientHashMismatch)
        /// The creation time lies further in the future than the clock-skew tolerance allows.
        public static let createdInFuture = Code(.receiptCreatedInFuture)
        /// The receipt is older than the maximum age asked for.
        public static let tooOld = Code(.receiptTooOld)
        /// The receipt's expiration time has passed.
        public static let expired = Code(.receiptExpired)

        public var description: String { errorCode.description }
    }

    /// The check that failed.
    public let code: Code
    /// What exactly differed or which underlying check failed.
    public let detail: String
    private let file: String
    private let line: Int

    public init(_ code: Code, _ detail: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.detail = detail
        self.file = file
        self.line = line
    }

    public var description: String { "\(code): \(detail)" }
    public var debugDescription: String { "ReceiptError(\(code), \(detail)) at \(file):\(line)" }

    public static func == (lhs: ReceiptError, rhs: ReceiptError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
