public import Foundation

/// The console's aggregate reads: every one names its app, a time range where it has one, and a row limit, so that
/// a page costs a bounded scan whatever the log holds. The caller bounds the range; the store applies what it is
/// given.
public protocol ConsoleStore: Sendable {
    /// The verdicts of `appId` decided in `[from, to)`, newest first, at most `limit`: the columns the console's
    /// charts count (no signals, no subjects).
    func verdictSample(appId: String, from: Date, to: Date, limit: Int) async throws -> [VerdictSample]

    /// The current risk metric of the app's active keys, with how many keys have each (`nil`: not redeemed yet),
    /// counted over at most `limit` keys.
    func riskMetricCounts(appId: String, limit: Int) async throws -> [RiskMetricCount]
}
