public import AttestGuardStore
import AttestVocabulary
import Metrics
import Synchronization

/// Each app's latest risk-metric baseline, held in memory so that a verdict reads `app.risk_metric.*` and
/// `receipt.risk_metric_percentile` without a store round trip. The server fills it at start and again every
/// `apps.policyReloadSeconds` (``RiskBaselineStore/latestRiskBaselines()``); each fill publishes the baselines as
/// `attestguard_app_risk_metric_percentile{app,percentile}` and `attestguard_app_risk_metric_share{app,at_least}`.
public final class RiskBaselineBook: Sendable {
    private let baselines = Mutex<[String: RiskMetricBaseline]>([:])

    public init() {}

    /// The app's latest baseline, if one was computed.
    public func baseline(appId: String) -> RiskMetricBaseline? {
        baselines.withLock { $0[appId] }
    }

    /// Puts `latest` (one baseline per app) in force and publishes it; returns the apps whose baseline changed.
    @discardableResult
    public func replace(with latest: [RiskMetricBaseline]) -> [String] {
        let incoming = Dictionary(latest.map { ($0.appId, $0) }, uniquingKeysWith: { $0.day >= $1.day ? $0 : $1 })
        let changed = baselines.withLock { held in
            let changed = incoming.filter { held[$0.key] != $0.value }.map(\.key).sorted()
            held.merge(incoming) { _, new in new }
            return changed
        }
        for appId in changed { if let baseline = incoming[appId] { Self.publish(baseline) } }
        return changed
    }

    private static func publish(_ baseline: RiskMetricBaseline) {
        let app = ("app", baseline.appId)
        for (name, value) in [("p50", baseline.p50), ("p90", baseline.p90), ("p99", baseline.p99)] {
            guard let value else { continue }
            Gauge(label: MetricFamily.appRiskMetricPercentile.name, dimensions: [app, ("percentile", name)]).record(value)
        }
        Gauge(label: MetricFamily.appRiskMetricShare.name, dimensions: [app, ("at_least", "4")]).record(baseline.shareAtLeast4)
        Gauge(label: MetricFamily.appRiskMetricShare.name, dimensions: [app, ("at_least", "10")]).record(baseline.shareAtLeast10)
    }
}
