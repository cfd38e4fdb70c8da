import AttestCore
import Foundation
import AttestGuardStore
import AttestVocabulary

/// A token bucket per environment that every redemption of one process passes through, adapting to Apple:
/// a 429 pauses the environment (for `Retry-After`, or a doubling pause without one) and halves the rate; each
/// success wins back a little of it.
actor RedemptionRateLimiter {
    private struct Bucket {
        var configuredRate: Double
        var factor: Double = 1
        var tokens: Double
        var updatedAt: Date
        var pausedUntil: Date?
        var consecutiveThrottles = 0

        var rate: Double { configuredRate * factor }
        var capacity: Double { max(1, rate / 10) }
    }

    private let clock: any EngineClock
    private var buckets: [AppAttestEnvironment: Bucket] = [:]
    private let rates: [AppAttestEnvironment: Double]

    init(rates: [AppAttestEnvironment: Double], clock: any EngineClock) {
        self.rates = rates
        self.clock = clock
    }

    /// Waits until this environment may send one more request.
    func acquire(_ environment: AppAttestEnvironment) async throws {
        if let start = reserve(environment) {
            try await clock.sleep(until: start)
        }
    }

    /// Takes a token (running into debt when none is left) and returns when the caller may go, or nil for now.
    private func reserve(_ environment: AppAttestEnvironment) -> Date? {
        let now = clock.now()
        var bucket = bucket(environment, at: now)
        defer { buckets[environment] = bucket }
        let pause = bucket.pausedUntil.flatMap { $0 > now ? $0 : nil }
        guard bucket.configuredRate > 0 else { return pause }
        let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
        bucket.tokens = min(bucket.capacity, bucket.tokens + elapsed * bucket.rate)
        bucket.updatedAt = now
        bucket.tokens -= 1
        let debtWait = bucket.tokens >= 0 ? 0 : -bucket.tokens / bucket.rate
        guard debtWait > 0 || pause != nil else { return nil }
        return (pause ?? now).addingTimeInterval(debtWait)
    }

    /// The environment's bucket, a new empty one at first use.
    private func bucket(_ environment: AppAttestEnvironment, at now: Date) -> Bucket {
        buckets[environment] ?? Bucket(configuredRate: rates[environment] ?? 0, tokens: 0, updatedAt: now)
    }

    /// Apple answered 429: pause the environment and halve its rate.
    func throttled(_ environment: AppAttestEnvironment, retryAfter: Duration?) {
        let now = clock.now()
        var bucket = bucket(environment, at: now)
        bucket.consecutiveThrottles += 1
        let pause = retryAfter?.timeInterval ?? min(60, pow(2, Double(min(bucket.consecutiveThrottles - 1, 6))))
        bucket.pausedUntil = max(bucket.pausedUntil ?? now, now.addingTimeInterval(pause))
        bucket.factor = max(0.05, bucket.factor / 2)
        buckets[environment] = bucket
    }

    /// A request went through: recover 5 % of the configured rate.
    func succeeded(_ environment: AppAttestEnvironment) {
        guard var bucket = buckets[environment] else { return }
        bucket.consecutiveThrottles = 0
        bucket.factor = min(1, bucket.factor + 0.05)
        buckets[environment] = bucket
    }
}
