import AttestCore
import Metrics
import AttestGuardStore
import AttestVocabulary

/// The receipt scheduler's metrics (swift-metrics, exported to Prometheus by the server):
/// `attestguard_receipt_redemptions_total{app,environment,outcome}`,
/// `attestguard_receipt_redemption_duration_seconds{environment}` (Apple's latency),
/// `attestguard_receipt_queue_depth{state}` (`due`, `leased`, `retrying`, `dormant`),
/// `attestguard_receipt_dormant_keys_total{app}` (keys taken out of the schedule as unused) and
/// `attestguard_receipt_risk_metric` (the distribution of stored risk metrics).
public struct ReceiptRefreshMetrics: Sendable {
    public init() {}

    func recordResult(_ result: ReceiptRefreshResult, appId: String, environment: AppAttestEnvironment) {
        Counter(
            label: MetricFamily.receiptRedemptions.name,
            dimensions: [("app", appId), ("environment", environment.rawValue), ("outcome", result.outcome)]
        ).increment()
    }

    func recordParking(_ parking: DormantParking) {
        for (appId, parked) in parking.parkedPerApp {
            Counter(label: MetricFamily.receiptDormantKeys.name, dimensions: [("app", appId)]).increment(by: parked)
        }
    }

    func recordLatency(_ duration: Duration, environment: AppAttestEnvironment) {
        Timer(label: MetricFamily.receiptRedemptionDuration.name, dimensions: [("environment", environment.rawValue)])
            .recordSeconds(duration.timeInterval)
    }

    func recordRiskMetric(_ metric: Int) {
        Recorder(label: MetricFamily.receiptRiskMetric.name, aggregate: true).record(metric)
    }

    func recordBacklog(_ backlog: ReceiptBacklog) {
        Gauge(label: MetricFamily.receiptQueueDepth.name, dimensions: [("state", "due")]).record(backlog.due)
        Gauge(label: MetricFamily.receiptQueueDepth.name, dimensions: [("state", "leased")]).record(backlog.leased)
        Gauge(label: MetricFamily.receiptQueueDepth.name, dimensions: [("state", "retrying")]).record(backlog.retrying)
        Gauge(label: MetricFamily.receiptQueueDepth.name, dimensions: [("state", "dormant")]).record(backlog.dormant)
    }
}
