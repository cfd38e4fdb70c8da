import Foundation
public import AppleReceipts
public import AttestCore
public import AttestGuardStore
public import X509

/// The engine's knobs: challenge lifetime and quotas, the clock-skew tolerance, and the trust mode.
public struct EngineSettings: Sendable {
    /// Where trust comes from.
    public enum TrustMode: Sendable {
        /// Apple's built-in roots only.
        case production
        /// Simulator roots; production-environment keys are refused so that test keys can never pass as real.
        case simulator(attestationRoots: [Certificate], receiptRoots: [Certificate])
    }

    public var challengeTTL: Duration
    public var challengeQuota: ChallengeQuota
    /// Challenges per minute one API key may request (per process), 0 for no limit.
    public var challengesPerMinutePerAPIKey: Int
    /// One tolerance for certificate validity, receipt creation times and challenge expiry.
    public var clockSkew: Duration
    public var trust: TrustMode
    /// The receipt scheduler's pacing; ``ReceiptRefreshSettings/firstRedemptionDelay`` also schedules each new
    /// key's first redemption at attestation.
    public var receiptRefresh: ReceiptRefreshSettings
    /// The key of the keyed hashes velocity counts subjects (users, IPs, devices, keys) under; the same on every
    /// process that shares a store. The default is a fixed, public key: for tests and the simulator only.
    public var velocityKeying: VelocityKeying
    /// How many days the decision log keeps (`decisionLog.retentionDays`).
    public var decisionLogRetentionDays: Int
    /// How long, and how many of, the verdicts' daily facts each process holds (`factsCache.*`).
    public var factsCache: ScoringFactsCache.Limits
    /// The keys session tokens are signed and verified with (`sessionTokens.*`); `nil`: the server issues none.
    public var sessionTokenKeys: SessionTokenKeys?
    /// How often each process reads the keys retired through the others (`sessionTokens.revocationRefreshSeconds`):
    /// a revoked or superseded key's session tokens stop passing everywhere within this period.
    public var revocationRefresh: Duration = .seconds(10)
    /// The receivers of webhook events (`webhooks.*`); none: no event is written.
    public var webhooks: [WebhookEndpoint] = []

    public init(
        challengeTTL: Duration = .seconds(300),
        challengeQuota: ChallengeQuota = ChallengeQuota(maximumPerUser: 30, window: .seconds(300)),
        challengesPerMinutePerAPIKey: Int = 0,
        clockSkew: Duration = .seconds(120),
        trust: TrustMode = .production,
        receiptRefresh: ReceiptRefreshSettings = ReceiptRefreshSettings(),
        velocityKeying: VelocityKeying = .publicTestKey,
        decisionLogRetentionDays: Int = 30,
        factsCache: ScoringFactsCache.Limits = ScoringFactsCache.Limits()
    ) {
        self.challengeTTL = challengeTTL
        self.challengeQuota = challengeQuota
        self.challengesPerMinutePerAPIKey = challengesPerMinutePerAPIKey
        self.clockSkew = clockSkew
        self.trust = trust
        self.receiptRefresh = receiptRefresh
        self.velocityKeying = velocityKeying
        self.decisionLogRetentionDays = decisionLogRetentionDays
        self.factsCache = factsCache
    }

    /// The receipt verifier for this trust mode (Apple Root CA - G3, or the simulator's receipt root).
    public var receiptVerifier: ReceiptVerifier {
        switch trust {
        case .production: ReceiptVerifier(clockSkewTolerance: clockSkew.timeInterval)
        case .simulator(_, let receiptRoots): ReceiptVerifier(trustRoots: receiptRoots, clockSkewTolerance: clockSkew.timeInterval)
        }
    }

    /// The attestation verifier for this trust mode, with the configured skew.
    public var attestationVerifier: AttestationVerifier {
        switch trust {
        case .production:
            AttestationVerifier(clockSkewTolerance: clockSkew.timeInterval)
        case .simulator(let attestationRoots, let receiptRoots):
            AttestationVerifier(
                trustRoots: attestationRoots,
                receiptTrustRoots: receiptRoots,
                clockSkewTolerance: clockSkew.timeInterval
            )
        }
    }
}
