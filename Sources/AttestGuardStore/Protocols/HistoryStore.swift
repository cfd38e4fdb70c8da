public import Foundation

/// The reads analysts make of what the server recorded: a key's risk-metric history, newest first, and the
/// decision log searched by key, user or device. Every read is bounded by a limit and names its app.
public protocol HistoryStore: Sendable {
    /// A key's risk metrics (one per verified receipt, each the outcome of a redemption), newest receipt first, at
    /// most `limit`.
    func recentRiskMetrics(appId: String, keyId: Data, limit: Int) async throws -> [RiskMetricObservation]

    /// The decisions the search names, newest first: (decidedAt, sequence) descending.
    func searchDecisions(_ search: DecisionSearch) async throws -> [DecisionLogEntry]
}
