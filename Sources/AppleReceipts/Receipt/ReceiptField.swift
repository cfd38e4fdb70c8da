/// One field of a receipt payload, exactly as Apple encodes it.
///
/// ```
/// ReceiptAttribute ::= SEQUENCE {
///     type    INTEGER,
///     version INTEGER,
///     value   OCTET STRING }
/// ```
/// Unknown field types are kept so nothing Apple adds is lost.
public struct ReceiptField: Sendable, Hashable {
    /// The field type number (see ``ReceiptFieldType``).
    public var type: Int
    /// The field version Apple wrote (1 on every receipt seen).
    public var version: Int
    /// The raw octets of the value.
    public var value: [UInt8]

    public init(type: Int, version: Int = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = value
    }
}

/// The receipt field type numbers Apple documents (and field 7, seen on real receipts).
public enum ReceiptFieldType {
    /// 2: the App ID, `TEAMID.bundle.id`.
    public static let appId = 2
    /// 3: the attested key; on real receipts the whole DER credential certificate.
    public static let attestedPublicKey = 3
    /// 4: the client hash (the attestation's clientDataHash on ATTEST receipts).
    public static let clientHash = 4
    /// 5: an opaque token, stable across refreshes of one key's receipt.
    public static let token = 5
    /// 6: `ATTEST` or `RECEIPT`.
    public static let receiptType = 6
    /// 7: `sandbox` or `production` (undocumented).
    public static let environment = 7
    /// 12: the creation time.
    public static let creationTime = 12
    /// 17: the risk metric, a decimal string (RECEIPT only).
    public static let riskMetric = 17
    /// 19: the earliest time the receipt may be redeemed again (RECEIPT only).
    public static let notBefore = 19
    /// 21: the expiration time.
    public static let expirationTime = 21
}
