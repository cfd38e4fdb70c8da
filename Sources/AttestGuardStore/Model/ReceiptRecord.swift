public import AttestVocabulary
public import Foundation

/// The current App Attest receipt of a key: the attestation's verified ATTEST receipt, later replaced by newer
/// RECEIPT receipts from Apple's redemption endpoint.
public struct ReceiptRecord: Sendable, Hashable {
    public var appId: String
    public var keyId: Data
    /// `ATTEST` or `RECEIPT` (Apple's field 6).
    public var receiptType: ReceiptType
    /// The receipt exactly as Apple sent it (CMS, BER).
    public var receipt: Data
    public var createdAt: Date
    public var notBefore: Date?
    public var expiresAt: Date?
    /// Apple's risk metric (field 17); absent on ATTEST receipts.
    public var riskMetric: Int?
    public var storedAt: Date
    /// When the scheduler next redeems this receipt with Apple; `nil` when it is not scheduled.
    public var nextRefreshAt: Date?
    /// When a redemption last replaced this receipt.
    public var refreshedAt: Date?
    /// Set when Apple answered 404 (no data for 30 days): the stored risk metric is no longer current.
    public var metricStale: Bool
    /// How the last redemption attempt went (`redeemed`, `not_modified`, `no_data`, an error code, ...).
    public var lastOutcome: String?
    /// When the last redemption attempt was made.
    public var lastAttemptAt: Date?
    /// Transient failures since the last settled attempt (the back-off exponent).
    public var attempts: Int

    public init(
        appId: String,
        keyId: Data,
        receiptType: ReceiptType,
        receipt: Data,
        createdAt: Date,
        notBefore: Date?,
        expiresAt: Date?,
        riskMetric: Int?,
        storedAt: Date,
        nextRefreshAt: Date? = nil,
        refreshedAt: Date? = nil,
        metricStale: Bool = false,
        lastOutcome: String? = nil,
        lastAttemptAt: Date? = nil,
        attempts: Int = 0
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
        self.nextRefreshAt = nextRefreshAt
        self.refreshedAt = refreshedAt
        self.metricStale = metricStale
        self.lastOutcome = lastOutcome
        self.lastAttemptAt = lastAttemptAt
        self.attempts = attempts
    }
}
