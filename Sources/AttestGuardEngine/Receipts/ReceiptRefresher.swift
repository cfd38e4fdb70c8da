import AppleReceipts
import AppleServices
import AttestCore
import Foundation
public import AttestGuardStore
import AttestVocabulary

/// Redeems one leased receipt and settles it: Apple's answer is verified before anything is written, a valid
/// receipt replaces the stored one with its history row in one transaction, and every other answer reschedules
/// the receipt as Apple's rules say (304 after not-before, 404 stale, 429 and 5xx back off).
public struct ReceiptRefresher: Sendable {
    let store: any RiskStore
    let redeemer: any ReceiptRedeeming
    let verifier: ReceiptVerifier
    let settings: ReceiptRefreshSettings
    let clock: any EngineClock
    let limiter: RedemptionRateLimiter
    let backoff: RetryBackoff
    let metrics: ReceiptRefreshMetrics
    /// Told of every receipt this refresher settles, so that this process's verdicts read it at once.
    let factsCache: ScoringFactsCache?

    init(
        store: any RiskStore,
        redeemer: any ReceiptRedeeming,
        verifier: ReceiptVerifier,
        settings: ReceiptRefreshSettings,
        clock: any EngineClock,
        limiter: RedemptionRateLimiter,
        metrics: ReceiptRefreshMetrics,
        factsCache: ScoringFactsCache? = nil
    ) {
        self.factsCache = factsCache
        self.store = store
        self.redeemer = redeemer
        self.verifier = verifier
        self.settings = settings
        self.clock = clock
        self.limiter = limiter
        self.backoff = RetryBackoff(base: settings.retryBaseDelay, maximum: settings.retryMaximumDelay)
        self.metrics = metrics
    }

    /// Redeems, verifies and settles one leased receipt.
    public func refresh(_ lease: ReceiptLease) async throws -> ReceiptRefreshResult {
        let environment = lease.environment
        try await limiter.acquire(environment)
        let started = ContinuousClock.now
        let answer = await redeemer.redeem(Array(lease.receipt.receipt), environment: environment)
        metrics.recordLatency(ContinuousClock.now - started, environment: environment)
        let now = clock.now()
        let result: ReceiptRefreshResult
        switch answer {
        case .redeemed(let bytes):
            await limiter.succeeded(environment)
            result = try await store(bytes, for: lease, at: now)
        case .notModified:
            await limiter.succeeded(environment)
            let notBefore = lease.receipt.notBefore.flatMap { $0 > now ? $0.addingTimeInterval(1) : nil }
            result = try await settle(lease, as: .notModified, next: notBefore ?? now.addingTimeInterval(settings.retryMaximumDelay.timeInterval))
        case .noData:
            await limiter.succeeded(environment)
            result = try await settle(lease, as: .noData, next: nextRound(after: now), stale: true)
        case .throttled(let retryAfter):
            await limiter.throttled(environment, retryAfter: retryAfter)
            result = try await retry(lease, "throttled", at: now, atLeast: retryAfter?.timeInterval ?? 0)
        case .serverError:
            result = try await retry(lease, "server_error", at: now)
        case .timedOut:
            result = try await retry(lease, "timed_out", at: now)
        case .connectionFailed:
            result = try await retry(lease, "connection_failed", at: now)
        case .unexpectedStatus:
            result = try await retry(lease, "unexpected_status", at: now)
        case .unauthorized:
            result = try await settle(lease, as: .failed("unauthorized"), next: nextRound(after: now))
        case .incorrectEnvironment:
            result = try await settle(lease, as: .failed("incorrect_environment"), next: nextRound(after: now))
        case .badRequest:
            result = try await settle(lease, as: .failed("bad_request"), next: nextRound(after: now))
        }
        metrics.recordResult(result, appId: lease.appId, environment: environment)
        return result
    }

    /// Verifies Apple's receipt for this key, then stores it; a receipt that does not verify is a transient
    /// failure and the stored receipt stays.
    private func store(_ bytes: [UInt8], for lease: ReceiptLease, at now: Date) async throws -> ReceiptRefreshResult {
        let expectation = ReceiptExpectation(
            appId: lease.appId,
            publicKeyX963: Array(lease.publicKey),
            type: .receipt,
            maximumAge: settings.maximumReceiptAge.timeInterval
        )
        let receipt: Receipt
        switch await verifier.verify(bytes, expecting: expectation, at: now) {
        case .valid(let verified): receipt = verified
        case .invalid(let error): return try await retry(lease, error.code.description, at: now)
        }
        let record = ReceiptRecord(
            appId: lease.appId,
            keyId: lease.keyId,
            receiptType: receipt.type,
            receipt: Data(bytes),
            createdAt: receipt.creationTime,
            notBefore: receipt.notBefore,
            expiresAt: receipt.expirationTime,
            riskMetric: receipt.riskMetric,
            storedAt: now,
            nextRefreshAt: nextRefresh(after: receipt, at: now)
        )
        // Told whatever the outcome: a write that timed out may still have committed.
        defer { factsCache?.keyChanged(appId: lease.appId, keyId: lease.keyId) }
        switch try await store.replaceReceipt(ReceiptReplacement(receipt: record, leaseOwner: lease.owner, observedAt: now)) {
        case .replaced:
            if let metric = receipt.riskMetric { metrics.recordRiskMetric(metric) }
            return .redeemed(riskMetric: receipt.riskMetric)
        case .keptNewer: return .keptNewer
        case .keyInactive: return .keyInactive
        }
    }

    /// When a freshly redeemed receipt is due again: one interval from now, never before not-before (plus a second,
    /// so that storage rounding cannot land it a hair early and earn a 304), and at the latest `expirationMargin`
    /// before it expires.
    func nextRefresh(after receipt: Receipt, at now: Date) -> Date {
        let notBefore = receipt.notBefore.map { $0.addingTimeInterval(1) } ?? now
        var next = max(nextRound(after: now), notBefore)
        if let expiration = receipt.expirationTime {
            next = min(next, max(notBefore, expiration.addingTimeInterval(-settings.expirationMargin.timeInterval)))
        }
        return next
    }

    /// One refresh interval after `now`: when a settled receipt is next due.
    private func nextRound(after now: Date) -> Date {
        now.addingTimeInterval(settings.refreshInterval.timeInterval)
    }

    /// A transient failure: back off and retry, or give up until the next regular refresh.
    private func retry(_ lease: ReceiptLease, _ word: String, at now: Date, atLeast minimum: TimeInterval = 0) async throws -> ReceiptRefreshResult {
        let attempts = lease.receipt.attempts + 1
        if attempts >= settings.maximumAttempts {
            return try await settle(lease, as: .gaveUp(word), next: nextRound(after: now))
        }
        let delay = max(minimum, backoff.delay(forAttempt: attempts))
        return try await settle(lease, as: .retrying(word), next: now.addingTimeInterval(delay), attempts: attempts)
    }

    private func settle(
        _ lease: ReceiptLease,
        as result: ReceiptRefreshResult,
        next: Date?,
        attempts: Int = 0,
        stale: Bool? = nil
    ) async throws -> ReceiptRefreshResult {
        let attempt = ReceiptAttempt(
            appId: lease.appId,
            keyId: lease.keyId,
            leaseOwner: lease.owner,
            at: clock.now(),
            outcome: result.outcome,
            nextRefreshAt: next,
            attempts: attempts,
            metricStale: stale
        )
        defer { if stale != nil { factsCache?.keyChanged(appId: lease.appId, keyId: lease.keyId) } }
        return try await store.recordReceiptAttempt(attempt) ? result : .leaseLost
    }
}
