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
/// Every metric runs on every request of its flow, so the handles are made once, here, for every label combination
/// the flows record (``attestationResults`` and the others), which also publishes each series at 0 from the start:
/// a request looks its counter up instead of asking the metrics factory for it. A result outside the lists is made
/// when it is recorded.
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

    private struct OperationLabels: Hashable {
        var operation: String
        var result: String
    }

    private let verdicts: [VerdictLabels: Counter]
    private let ruleDecisions: [RuleDecisionLabels: Counter]
    private let scoreDuration: Timer
    private let attestations: [String: Counter]
    private let assertions: [String: Counter]
    /// By purpose (`operation`) and result.
    private let challenges: [OperationLabels: Counter]
    private let deviceChecks: [OperationLabels: Counter]

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
        attestations = Self.published(Self.attestationResults) { Self.attestation($0) }
        assertions = Self.published(Self.assertionResults) { Self.assertion($0) }
        challenges = Self.published(ChallengePurpose.allCases.flatMap { purpose in
            Self.challengeResults.map { OperationLabels(operation: purpose.rawValue, result: $0) }
        }) { Self.challenge($0) }
        deviceChecks = Self.published(Self.deviceCheckResults.flatMap { operation, results in
            results.map { OperationLabels(operation: operation, result: $0) }
        }) { Self.deviceCheck($0) }
    }

    /// A counter for each of `labels`, made and published at 0.
    private static func published<Labels: Hashable>(_ labels: [Labels], _ make: (Labels) -> Counter) -> [Labels: Counter] {
        var counters: [Labels: Counter] = [:]
        for label in labels {
            let counter = make(label)
            counter.increment(by: 0)
            counters[label] = counter
        }
        return counters
    }

    private static func attestation(_ result: String) -> Counter {
        Counter(label: MetricFamily.attestations.name, dimensions: [("result", result)])
    }

    private static func assertion(_ result: String) -> Counter {
        Counter(label: MetricFamily.assertions.name, dimensions: [("result", result)])
    }

    private static func challenge(_ labels: OperationLabels) -> Counter {
        Counter(label: MetricFamily.challenges.name, dimensions: [("purpose", labels.operation), ("result", labels.result)])
    }

    private static func deviceCheck(_ labels: OperationLabels) -> Counter {
        Counter(label: MetricFamily.devicecheckRequests.name, dimensions: [("operation", labels.operation), ("result", labels.result)])
    }

    func recordAttestation(result: String) {
        (attestations[result] ?? Self.attestation(result)).increment()
    }

    func recordAssertion(result: String) {
        (assertions[result] ?? Self.assertion(result)).increment()
    }

    func recordChallenge(purpose: String, result: String) {
        let labels = OperationLabels(operation: purpose, result: result)
        (challenges[labels] ?? Self.challenge(labels)).increment()
    }

    func recordVerdict(endpoint: Endpoint, decision: Decision, ruleDecision: Decision, enforced: Bool, duration: Duration) {
        verdicts[VerdictLabels(endpoint: endpoint, decision: decision, enforced: enforced)]?.increment()
        ruleDecisions[RuleDecisionLabels(endpoint: endpoint, decision: ruleDecision)]?.increment()
        scoreDuration.recordSeconds(duration.timeInterval)
    }

    func recordDeviceCheck(operation: String, result: String) {
        let labels = OperationLabels(operation: operation, result: result)
        (deviceChecks[labels] ?? Self.deviceCheck(labels)).increment()
    }
}
