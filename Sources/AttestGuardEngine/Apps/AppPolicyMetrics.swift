import AttestVocabulary
import Metrics

/// Each configured app's policy in force and its traffic, for the attestation rollout's ramp and the enforcement
/// alert: `attestguard_app_enforced{app}` (1 enforce, 0 monitor), `attestguard_app_attestation_required_percent{app}`
/// and `attestguard_app_verdicts_total{app,attestation="attested|unattested"}`. The handles are made once, for the
/// configured apps only (so the label's values are bounded by the configuration), and publish from the start.
struct AppPolicyMetrics: Sendable {
    private struct Handles: Sendable {
        let enforced: Gauge
        let attestationRequiredPercent: Gauge
        let attested: Counter
        let unattested: Counter
    }

    private let handles: [String: Handles]

    init(apps: [AppPolicy]) {
        var handles: [String: Handles] = [:]
        for app in apps {
            let label = [("app", app.appId)]
            handles[app.appId] = Handles(
                enforced: Gauge(label: MetricFamily.appEnforced.name, dimensions: label),
                attestationRequiredPercent: Gauge(label: MetricFamily.appAttestationRequiredPercent.name, dimensions: label),
                attested: Counter(label: MetricFamily.appVerdicts.name, dimensions: label + [("attestation", "attested")]),
                unattested: Counter(label: MetricFamily.appVerdicts.name, dimensions: label + [("attestation", "unattested")])
            )
        }
        self.handles = handles
        for app in apps { publish(app) }
    }

    func publish(_ app: AppPolicy) {
        guard let handle = handles[app.appId] else { return }
        handle.enforced.record(app.mode == .enforce ? 1 : 0)
        handle.attestationRequiredPercent.record(app.attestationRequiredPercent)
    }

    func recordVerdict(appId: String, attested: Bool) {
        guard let handle = handles[appId] else { return }
        (attested ? handle.attested : handle.unattested).increment()
    }
}
