import AttestGuardEngine
import AttestVocabulary
import GatewayPolicy
import Metrics

extension GatewayCheckOutcome {
    /// The `route` of an answer the policy's default protection gave (no route matched).
    static let defaultRoute = "default"

    /// Counts one answer in `attestguard_gateway_checks_total`.
    static func record(_ outcome: GatewayCheckOutcome, route: RouteDecision, passed: Bool) {
        Counter(label: MetricFamily.gatewayChecks.name, dimensions: [
            ("app", route.appId), ("route", route.pattern ?? defaultRoute), ("outcome", outcome.rawValue), ("result", passed ? "passed" : "refused"),
        ]).increment()
    }
}
