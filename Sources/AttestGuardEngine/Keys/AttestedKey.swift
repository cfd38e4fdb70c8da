import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// A registered key as the engine shows it: the app and user it belongs to for life, its environment, status and
/// counter. The store's row holds more (the public key, the attestation's digest) that no caller needs.
public struct AttestedKey: Sendable, Hashable {
    public var appId: String
    public var keyId: KeyId
    public var userId: String
    public var deviceId: String?
    public var environment: AppAttestEnvironment
    public var status: KeyStatus
    /// The last accepted assertion counter (0 before any).
    public var counter: Int64
    public var attestedAt: Date
    public var lastAssertionAt: Date?
    /// When the key was superseded or revoked.
    public var statusChangedAt: Date?
    /// The key that replaced this one on the same device.
    public var supersededBy: KeyId?
    /// The iOS version the attestation's certificate names.
    public var osVersion: String?
    /// How the attested app was distributed (iOS 27 and later).
    public var validationCategory: ValidationCategory?
    /// The attested app's bundle version (iOS 27 and later).
    public var bundleVersion: String?

    init(_ record: KeyRecord) {
        appId = record.appId
        keyId = KeyId(stored: record.keyId)
        userId = record.userId
        deviceId = record.deviceId
        environment = record.environment
        status = record.status
        counter = record.counter
        attestedAt = record.attestedAt
        lastAssertionAt = record.lastAssertionAt
        statusChangedAt = record.statusChangedAt
        supersededBy = record.supersededBy.map(KeyId.init(stored:))
        osVersion = record.osVersion
        validationCategory = record.validationCategory
        bundleVersion = record.bundleVersion
    }
}

/// A key's current receipt as the engine shows it: its type, validity, Apple's risk metric and the refresh
/// schedule. The receipt's bytes stay in the store.
public struct KeyReceipt: Sendable, Hashable {
    public var type: ReceiptType
    public var createdAt: Date
    public var notBefore: Date?
    public var expiresAt: Date?
    /// Keys attested on the device in 30 days, from the last redemption; `nil` before the first.
    public var riskMetric: Int?
    /// Apple had no data at the last attempt (404): the metric is old.
    public var metricStale: Bool
    public var refreshedAt: Date?
    public var nextRefreshAt: Date?
    /// How the last redemption attempt ended, and when it was made.
    public var lastOutcome: String?
    public var lastAttemptAt: Date?
    /// Transient failures since the last attempt that settled (Apple's answer, or giving up).
    public var failedAttempts: Int

    init(_ record: ReceiptRecord) {
        type = record.receiptType
        createdAt = record.createdAt
        notBefore = record.notBefore
        expiresAt = record.expiresAt
        riskMetric = record.riskMetric
        metricStale = record.metricStale
        refreshedAt = record.refreshedAt
        nextRefreshAt = record.nextRefreshAt
        lastOutcome = record.lastOutcome
        lastAttemptAt = record.lastAttemptAt
        failedAttempts = record.attempts
    }
}
