/// Why an App Attest receipt failed to parse or verify.
///
/// Each check has its own stable ``Code``; equality compares the code only. ``description`` is safe to
/// log, ``detail`` names the value or underlying check that failed.
public struct ReceiptError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The stable, machine-readable name of a failed receipt check.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Storage: String, Sendable {
            case malformedReceipt = "malformed_receipt"
            case malformedPayload = "malformed_receipt_payload"
            case fieldMissing = "receipt_field_missing"
            case signatureInvalid = "receipt_signature_invalid"
            case chainInvalid = "receipt_chain_invalid"
            case appIdMismatch = "receipt_app_id_mismatch"
            case publicKeyMismatch = "receipt_public_key_mismatch"
            case typeMismatch = "receipt_type_mismatch"
            case clientHashMismatch = "receipt_client_hash_mismatch"
            case createdInFuture = "receipt_created_in_future"
            case tooOld = "receipt_too_old"
            case expired = "receipt_expired"
        }

        private let storage: Storage
        private init(_ storage: Storage) { self.storage = storage }

        /// The bytes are not a CMS SignedData envelope with attached content.
        public static let malformedReceipt = Code(.malformedReceipt)
        /// The signed content is not a SET OF receipt fields, or a field's value has the wrong form.
        public static let malformedPayload = Code(.malformedPayload)
        /// A field the receipt must carry is absent.
        public static let fieldMissing = Code(.fieldMissing)
        /// The CMS signature (or its digest) does not verify with the signer certificate.
        public static let signatureInvalid = Code(.signatureInvalid)
        /// The signer's chain does not lead to the pinned receipt root at the verification instant.
        public static let chainInvalid = Code(.chainInvalid)
        /// Field 2 differs from the expected App ID.
        public static let appIdMismatch = Code(.appIdMismatch)
        /// The key of the certificate in field 3 differs from the expected public key.
        public static let publicKeyMismatch = Code(.publicKeyMismatch)
        /// Field 6 is not the expected receipt type.
        public static let typeMismatch = Code(.typeMismatch)
        /// Field 4 of an ATTEST receipt differs from the attestation's clientDataHash.
        public static let clientHashMismatch = Code(.clientHashMismatch)
        /// The creation time lies further in the future than the clock-skew tolerance allows.
        public static let createdInFuture = Code(.createdInFuture)
        /// The receipt is older than the maximum age asked for.
        public static let tooOld = Code(.tooOld)
        /// The receipt's expiration time has passed.
        public static let expired = Code(.expired)

        public var description: String { storage.rawValue }
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
