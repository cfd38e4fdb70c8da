public import Foundation
public import AttestVocabulary

/// The decoded payload of an App Attest receipt.
///
/// Produced by ``Receipt/init(payload:)`` from the signed content of the CMS envelope; a verified receipt
/// comes from ``ReceiptVerifier``. Every field is kept raw in ``fields``; the known ones are decoded.
public struct Receipt: Sendable, Hashable {
    /// Field 2: the App ID the receipt was issued for.
    public var appId: String
    /// Field 3: the attested key as Apple sent it (the DER credential certificate on real receipts).
    public var attestedKey: [UInt8]
    /// The attested P-256 public key as an uncompressed X9.62 point (65 bytes), decoded from field 3.
    public var attestedPublicKeyX963: [UInt8]
    /// Field 4: the client hash.
    public var clientHash: [UInt8]?
    /// Field 5: the token, stable across refreshes.
    public var token: String?
    /// Field 6: the receipt type.
    public var type: ReceiptType
    /// Field 7: `sandbox` or `production`, when present.
    public var environment: String?
    /// Field 12: when Apple created the receipt.
    public var creationTime: Date
    /// Field 17: attested keys on the device for the team in the last 30 days (RECEIPT only).
    public var riskMetric: Int?
    /// Field 19: not to be redeemed before this instant (RECEIPT only).
    public var notBefore: Date?
    /// Field 21: when the receipt expires.
    public var expirationTime: Date?
    /// Every field in payload order, known and unknown.
    public var fields: [ReceiptField]
}
