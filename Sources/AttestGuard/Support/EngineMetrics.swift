import Metrics
import RiskStore

/// The engine's verification counters (swift-metrics; the server exports them to Prometheus):
/// `attestguard_attestations_total{result}`, `attestguard_assertions_total{result}` and
/// `attestguard_challenges_total{purpose,result}` and `attestguard_devicecheck_requests_total{operation,result}`, where `result` is a success word or the error code;
/// and the verdicts: `attestguard_verdicts_total{endpoint,decision,enforced}` (the decision returned),
/// `attestguard_rule_decisions_total{endpoint,decision}` (what the rules decided, monitor mode included) and
/// `attestguard_score_duration_seconds` (signal assembly and evaluation).
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

    func recordVerdict(endpoint: String, decision: String, ruleDecision: String, enforced: Bool, duration: Duration) {
        Counter(label: "attestguard_verdicts_total", dimensions: [("endpoint", endpoint), ("decision", decision), ("enforced", String(enforced))]).increment()
        Counter(label: "attestguard_rule_decisions_total", dimensions: [("endpoint", endpoint), ("decision", ruleDecision)]).increment()
        Timer(label: "attestguard_score_duration_seconds", preferredDisplayUnit: .seconds).recordSeconds(duration.timeInterval)
    }

    func recordDeviceCheck(operation: String, result: String) {
        Counter(label: "attestguard_devicecheck_requests_total", dimensions: [("operation", operation), ("result", result)]).increment()
    }
}
