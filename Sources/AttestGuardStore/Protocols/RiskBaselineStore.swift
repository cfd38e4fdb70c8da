public import Foundation

/// Where each app's daily risk-metric baselines are kept, shared by every process on the store.
public protocol RiskBaselineStore: Sendable {
    /// Computes the app's baseline for `day` (`YYYY-MM-DD`, UTC) from the current receipts of its active keys in use
    /// (a dormant key's months-old metric is no part of today's distribution) of one environment (production when the
    /// app has an active production key, else development: test devices never skew a production baseline), and
    /// stores it, unless that app and day already have one. One transaction claims (app, day) with a conditional
    /// insert before computing: a concurrent call waits for it and answers ``RiskBaselineOutcome/alreadyComputed``,
    /// so a baseline is computed once per app and day however many processes run the job.
    func computeRiskBaseline(appId: String, day: String, at now: Date, by owner: String) async throws -> RiskBaselineOutcome

    /// Each app's most recent baseline.
    func latestRiskBaselines() async throws -> [RiskMetricBaseline]

    /// The app's baselines, newest day first, at most `limit`.
    func riskBaselineHistory(appId: String, limit: Int) async throws -> [RiskMetricBaseline]
}
