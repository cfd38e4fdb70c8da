public import AttestVocabulary

/// How the receipt scheduler paces itself: when receipts come due, how many it redeems at once, how fast it may
/// call Apple per environment, and how it backs off.
public struct ReceiptRefreshSettings: Sendable, Hashable {
    /// How long after a successful redemption a receipt is due again (never before Apple's not-before).
    public var refreshInterval: Duration
    /// How soon after attestation a key's ATTEST receipt is first redeemed, so a device farm shows in minutes.
    public var firstRedemptionDelay: Duration
    /// How long before a receipt expires it is redeemed at the latest.
    public var expirationMargin: Duration
    /// How long a worker holds leased receipts before other workers may take them over.
    public var leaseDuration: Duration
    /// Redemptions in flight at once per process.
    public var concurrency: Int
    /// Receipts leased per round trip to the store.
    public var leaseBatchSize: Int
    /// Transient failures (429, 5xx, timeouts, connection errors, receipts that do not verify) before the
    /// scheduler gives up on a receipt until its next regular refresh.
    public var maximumAttempts: Int
    /// The first retry's delay; each further retry doubles it, with jitter, up to ``retryMaximumDelay``.
    public var retryBaseDelay: Duration
    public var retryMaximumDelay: Duration
    /// Redemptions per second allowed per environment (a global token bucket per process); 0 for no limit.
    public var requestsPerSecond: [AppAttestEnvironment: Double]
    /// How often the continuous scheduler looks for newly due receipts.
    public var pollInterval: Duration
    /// The oldest a freshly redeemed receipt may be (Apple suggests minutes).
    public var maximumReceiptAge: Duration
    /// How long a key may go unused (no attestation, assertion or verdict naming it) before its receipt leaves the
    /// refresh schedule until its next use; `nil` refreshes every active key's receipt for ever.
    public var dormantAfter: Duration?

    public init(
        refreshInterval: Duration = .seconds(20 * 3_600),
        firstRedemptionDelay: Duration = .seconds(60),
        expirationMargin: Duration = .seconds(7 * 86_400),
        leaseDuration: Duration = .seconds(120),
        concurrency: Int = 32,
        leaseBatchSize: Int = 64,
        maximumAttempts: Int = 6,
        retryBaseDelay: Duration = .seconds(2),
        retryMaximumDelay: Duration = .seconds(300),
        requestsPerSecond: [AppAttestEnvironment: Double] = [.production: 500, .development: 100],
        pollInterval: Duration = .seconds(5),
        maximumReceiptAge: Duration = .seconds(300),
        dormantAfter: Duration? = .seconds(30 * 86_400)
    ) {
        self.refreshInterval = refreshInterval
        self.firstRedemptionDelay = firstRedemptionDelay
        self.expirationMargin = expirationMargin
        self.leaseDuration = leaseDuration
        self.concurrency = concurrency
        self.leaseBatchSize = leaseBatchSize
        self.maximumAttempts = maximumAttempts
        self.retryBaseDelay = retryBaseDelay
        self.retryMaximumDelay = retryMaximumDelay
        self.requestsPerSecond = requestsPerSecond
        self.pollInterval = pollInterval
        self.maximumReceiptAge = maximumReceiptAge
        self.dormantAfter = dormantAfter
    }
}
