public import Foundation

/// The current App Attest receipt of a key: the attestation's verified ATTEST receipt, later replaced by newer
/// RECEIPT receipts from Apple's redemption endpoint.
public struct ReceiptRecord: Sendable, Hashable {
    public var appId: String
    public var keyId: Data
    /// `ATTEST` or `RECEIPT` (Apple's field 6).
    public var receiptType: String
    /// The receipt exactly as Apple sent it (CMS, BER).
    public var receipt: Data
    public var createdAt: Date
    public var notBefore: Date?
    public var expiresAt: Date?
    /// Apple's risk metric (field 17); absent on ATTEST receipts.
    public var riskMetric: Int?
    public var storedAt: Date

    public init(
        appId: String,
        keyId: Data,
        receiptType: String,
        receipt: Data,
        createdAt: Date,
        notBefore: Date?,
        expiresAt: Date?,
        riskMetric: Int?,
        storedAt: Date
    ) {
        self.appId = appId
        self.keyId = keyId
        self.receiptType = receiptType
        self.receipt = receipt
        self.createdAt = createdAt
        self.notBefore = notBefore
        self.expiresAt = expiresAt
        self.riskMetric = riskMetric
        self.storedAt = storedAt
    }
}
