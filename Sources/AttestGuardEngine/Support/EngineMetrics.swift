import Metrics
import RiskRules
import AttestGuardStore
import AttestVocabulary

/// The engine's verification counters (swift-metrics; the server exports them to Prometheus):
/// `attestguard_attestations_total{result}`, `attestguard_assertions_total{result}` and
/// `attestguard_challenges_total{purpose,result}` and `attestguard_devicecheck_requests_total{operation,result}`, where `result` is a success word or the error code;
/// and the verdicts: `attestguard_verdicts_total{endpoint,decision,enforced}` (the decision returned),
/// `attestguard_rule_decisions_total{endpoint,decision}` (what the rules decided, monitor mode included) and
/// `attestguard_score_duration_seconds` (signal assembly and evaluation).
///
/// The verdict metrics run on every verdict, so their handles are made once, here, for every label combination
/// (which also publishes each series at 0 from the start); the others are made where they are recorded, and their
/// results are published at 0 here too (``attestationResults`` and the others).
public struct EngineMetrics: Sendable {
    private struct VerdictLabels: Hashable {
        var endpoint: Endpoint
        var decision: Decision
        var enforced: Bool
    }

    private struct RuleDecisionLabels: Hashable {
        var endpoint: Endpoint
        var decision: Decision
    }

    private let verdicts: [VerdictLabels: Counter]
    private let ruleDecisions: [RuleDecisionLabels: Counter]
    private let scoreDuration: Timer

    public init() {
        var verdicts: [VerdictLabels: Counter] = [:]
        var ruleDecisions: [RuleDecisionLabels: Counter] = [:]
        for endpoint in Endpoint.allCases {
            for decision in Decision.allCases {
                for enforced in [true, false] {
                    verdicts[VerdictLabels(endpoint: endpoint, decision: decision, enforced: enforced)] = Counter(
                        label: MetricFamily.verdicts.name,
                        dimensions: [("endpoint", endpoint.rawValue), ("decision", decision.rawValue), ("enforced", String(enforced))]
                    )
                }
            }
            for decision in Decision.allCases {
                ruleDecisions[RuleDecisionLabels(endpoint: endpoint, decision: decision)] = Counter(
                    label: MetricFamily.ruleDecisions.name, dimensions: [("endpoint", endpoint.rawValue), ("decision", decision.rawValue)]
                )
            }
        }
        self.verdicts = verdicts
        self.ruleDecisions = ruleDecisions
        self.scoreDuration = Timer(label: MetricFamily.scoreDuration.name, preferredDisplayUnit: .seconds)
        Self.publishResults()
    }

    func recordAttestation(result: String) {
        Counter(label: MetricFamily.attestations.name, dimensions: [("result", result)]).increment()
    }

    func recordAssertion(result: String) {
        Counter(label: MetricFamily.assertions.name, dimensions: [("result", result)]).increment()
    }

    func recordChallenge(purpose: String, result: String) {
        Counter(label: MetricFamily.challenges.name, dimensions: [("purpose", purpose), ("result", result)]).increment()
    }

    func recordVerdict(endpoint: Endpoint, decision: Decision, ruleDecision: Decision, enforced: Bool, duration: Duration) {
        verdicts[VerdictLabels(endpoint: endpoint, decision: decision, enforced: enforced)]?.increment()
        ruleDecisions[RuleDecisionLabels(endpoint: endpoint, decision: ruleDecision)]?.increment()
        scoreDuration.recordSeconds(duration.timeInterval)
    }

    func recordDeviceCheck(operation: String, result: String) {
        Counter(label: MetricFamily.devicecheckRequests.name, dimensions: [("operation", operation), ("result", result)]).increment()
    }
}
