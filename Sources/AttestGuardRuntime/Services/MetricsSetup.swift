import AttestVocabulary
public import CoreMetrics
public import Prometheus

/// The swift-metrics backend that `serve` bootstraps: Prometheus, with the catalog's HELP texts and histogram
/// buckets fit for what each histogram measures. The library's defaults start at 5 ms and at 5, which hides everything that matters
/// here: a verdict's latency goal is under 5 ms, and a device's risk metric counts a handful of attested keys.
public enum MetricsSetup {
    /// Request and verdict durations: fine below 5 ms, then the library's steps up to 10 s.
    package static let requestDurations: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(3), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// Apple's receipt endpoint: tens of milliseconds to the client's timeout.
    package static let appleDurations: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    /// Attested keys per device in 30 days: every small count apart, then the key-farm range.
    package static let riskMetrics: [Double] = [0, 1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 100]

    /// Any other value histogram (a library's): swift-prometheus's defaults.
    package static let defaultValueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    /// A factory writing to `registry` with these buckets and the catalog's HELP texts.
    public static func factory(registry: PrometheusCollectorRegistry) -> any MetricsFactory {
        CatalogMetricsFactory(
            registry: registry,
            durationBuckets: [
                MetricFamily.httpRequestDuration.name: requestDurations,
                MetricFamily.scoreDuration.name: requestDurations,
                MetricFamily.receiptRedemptionDuration.name: appleDurations,
            ],
            valueBuckets: [MetricFamily.receiptRiskMetric.name: riskMetrics]
        )
    }
}
