import Foundation
import Synchronization

/// A token bucket per key (an API key name), refilled continuously at `perMinute` tokens a minute with a burst
/// of one minute's worth. Per process: with N processes the cluster-wide rate is up to N times this.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    private let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes a token for `key`; returns nil if one was available, or the instant one will be.
    func take(key: String, at now: Date) -> Date? {
        guard perMinute > 0 else { return nil }
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updatedAt: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(capacity, bucket.tokens + elapsed * perSecond)
            bucket.updatedAt = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return now.addingTimeInterval((1 - bucket.tokens) / perSecond)
        }
    }
}
