import AttestVocabulary
package import CoreMetrics
package import Prometheus

/// The swift-metrics backend `serve` bootstraps: Prometheus, with every family's HELP text from the catalog
/// (``MetricFamily``) and histogram buckets fit for what each histogram measures (``MetricsSetup``).
///
/// swift-prometheus's own factory registers every family without HELP, and its registry refuses a family whose
/// HELP differs between registrations, so the text has to come from the one factory everything goes through.
package struct CatalogMetricsFactory: MetricsFactory {
    package let registry: PrometheusCollectorRegistry
    package let durationBuckets: [String: [Duration]]
    package let valueBuckets: [String: [Double]]

    /// The family's whole name with its HELP text: the catalog's, or none for a name outside it.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        .standard(label, help: MetricFamily.named(label)?.help ?? "")
    }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    package func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        let buckets = valueBuckets[label] ?? MetricsSetup.defaultValueBuckets
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets = durationBuckets[label] ?? MetricsSetup.requestDurations
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    package func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    package func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as Histogram<Double>: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    package func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    package func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? Histogram<Duration> { registry.unregisterDurationHistogram(histogram) }
    }
}
