public import Foundation

/// How many forward-auth answers of one kind one app's route gave in one five-minute bucket: what the console's
/// rollout page sums to show, per protected route, what `require` would refuse before an operator turns it on.
/// Counted in each process and added to the store in batches (``GatewayCheckStore/addGatewayChecks(_:)``).
public struct GatewayCheckCount: Sendable, Hashable {
    /// The width of one bucket, in seconds.
    public static let bucketSeconds: Int64 = 300

    public var appId: String
    /// The policy route's path pattern, or `default`.
    public var route: String
    /// What forward-auth found (`verified`, `token`, `debug`, `unattested`, `missing`, `invalid`, `replayed`, `denied`, `open`, `error`).
    public var outcome: String
    /// Whether the request was let through.
    public var passed: Bool
    /// The bucket's start, in seconds since 1970 (a multiple of ``bucketSeconds``).
    public var bucketStart: Int64
    public var count: Int64

    public init(appId: String, route: String, outcome: String, passed: Bool, bucketStart: Int64, count: Int64) {
        self.appId = appId
        self.route = route
        self.outcome = outcome
        self.passed = passed
        self.bucketStart = bucketStart
        self.count = count
    }

    /// The start of the bucket `instant` falls in.
    public static func bucketStart(of instant: Date) -> Int64 {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        return seconds - ((seconds % bucketSeconds) + bucketSeconds) % bucketSeconds
    }
}

extension Array where Element == GatewayCheckCount {
    /// One count per bucket, app, route, outcome and passed (an upsert may touch a row once), ordered so that
    /// concurrent writers lock rows in one order.
    package var mergedInLockOrder: [GatewayCheckCount] {
        var merged: [GatewayCheckCount: Int64] = [:]
        for count in self {
            var key = count
            key.count = 0
            merged[key, default: 0] += count.count
        }
        return merged.map { key, total in
            var count = key
            count.count = total
            return count
        }.sorted { left, right in
            (left.bucketStart, left.appId, left.route, left.outcome, left.passed ? 1 : 0)
                < (right.bucketStart, right.appId, right.route, right.outcome, right.passed ? 1 : 0)
        }
    }
}
