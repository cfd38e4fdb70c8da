/// Forward-auth answers counted per app, route, outcome and five-minute bucket.
public protocol GatewayCheckStore: Sendable {
    /// Adds each count to its bucket's stored count (creating it at 0), atomically per bucket.
    func addGatewayChecks(_ counts: [GatewayCheckCount]) async throws

    /// The counts of `appId` in buckets starting in `[from, to)` (seconds since 1970), summed over the buckets per
    /// route, outcome and passed (their `bucketStart` is `from`), ordered by route, outcome and passed; at most
    /// `limit` rows. A read that may lag (the read replica, when there is one).
    func gatewayChecks(appId: String, from: Int64, to: Int64, limit: Int) async throws -> [GatewayCheckCount]

    /// Deletes the buckets that start before `before`; returns how many.
    func purgeGatewayChecks(before: Int64) async throws -> Int
}
