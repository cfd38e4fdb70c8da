import Metrics

/// The engine's verification counters (swift-metrics; the server exports them to Prometheus):
/// `attestguard_attestations_total{result}`, `attestguard_assertions_total{result}` and
/// `attestguard_challenges_total{purpose,result}` and `attestguard_devicecheck_requests_total{operation,result}`, where `result` is a success word or the error code.
public struct EngineMetrics: Sendable {
    public init() {}

    func recordAttestation(result: String) {
        Counter(label: "attestguard_attestations_total", dimensions: [("result", result)]).increment()
    }

    func recordAssertion(result: String) {
        Counter(label: "attestguard_assertions_total", dimensions: [("result", result)]).increment()
    }

    func recordChallenge(purpose: String, result: String) {
        Counter(label: "attestguard_challenges_total", dimensions: [("purpose", purpose), ("result", result)]).increment()
    }

    func recordDeviceCheck(operation: String, result: String) {
        Counter(label: "attestguard_devicecheck_requests_total", dimensions: [("operation", operation), ("result", result)]).increment()
    }
}
