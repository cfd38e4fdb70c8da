public import Foundation

/// A registered key (the key routes, `attestation` answers): its identity, state and current receipt.
public struct KeyBody: Codable, Sendable, Hashable {
    /// The key's current receipt: its kind, dates, and the risk metric Apple last gave it.
    public struct ReceiptSummary: Codable, Sendable, Hashable {
        /// `ATTEST` or `RECEIPT`.
        public var type: String
        public var createdAt: Date
        public var notBefore: Date?
        public var expiresAt: Date?
        public var riskMetric: Int?
        /// Whether the metric is older than the app's freshness bound.
        public var metricStale: Bool
        public var refreshedAt: Date?
        public var nextRefreshAt: Date?
        public var lastOutcome: String?

        public init(
            type: String, createdAt: Date, notBefore: Date?, expiresAt: Date?, riskMetric: Int?, metricStale: Bool, refreshedAt: Date?,
            nextRefreshAt: Date?, lastOutcome: String?
        ) {
            self.type = type
            self.createdAt = createdAt
            self.notBefore = notBefore
            self.expiresAt = expiresAt
            self.riskMetric = riskMetric
            self.metricStale = metricStale
            self.refreshedAt = refreshedAt
            self.nextRefreshAt = nextRefreshAt
            self.lastOutcome = lastOutcome
        }
    }

    public var appId: String
    /// base64.
    public var keyId: String
    public var userId: String
    public var deviceId: String?
    /// `development` or `production`.
    public var environment: String
    /// `active`, `superseded` or `revoked`.
    public var status: String
    public var counter: Int64
    public var attestedAt: Date
    public var lastAssertionAt: Date?
    public var statusChangedAt: Date?
    /// base64 id of the key that took this one's place.
    public var supersededBy: String?
    public var osVersion: String?
    /// How the attested app was distributed (`app_store`, `test_flight`, `development`, ... or `unknown(N)`), from
    /// iOS 27's extension map; absent for keys attested before iOS 27.
    public var validationCategory: String?
    /// The attested app's bundle version, from iOS 27's extension map; absent before iOS 27.
    public var bundleVersion: String?
    public var receipt: ReceiptSummary?

    public init(
        appId: String, keyId: String, userId: String, deviceId: String?, environment: String, status: String, counter: Int64,
        attestedAt: Date, lastAssertionAt: Date?, statusChangedAt: Date?, supersededBy: String?, osVersion: String?, receipt: ReceiptSummary?
    ) {
        self.appId = appId
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.environment = environment
        self.status = status
        self.counter = counter
        self.attestedAt = attestedAt
        self.lastAssertionAt = lastAssertionAt
        self.statusChangedAt = statusChangedAt
        self.supersededBy = supersededBy
        self.osVersion = osVersion
        self.receipt = receipt
    }
}
