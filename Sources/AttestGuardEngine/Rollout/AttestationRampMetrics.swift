import AttestGuardStore
import AttestVocabulary
import Metrics

/// The automatic attestation rollout's metrics, for the configured ramping apps only (so the `app` label's values are
/// bounded by the configuration): `attestguard_attestation_ramp_steps_total{app,action}` (each step, hold, pause and
/// completion the controller took in this process), `attestguard_attestation_ramp_paused{app}` (1 while the stored
/// ramp is paused, as this process last read it) and `attestguard_attestation_outcomes_total{app,outcome}` (the
/// outcomes this process counted). Every handle publishes from the start, so that `increase()` sees the first event.
struct AttestationRampMetrics: Sendable {
    private struct Handles: Sendable {
        let actions: [AttestationRampAction: Counter]
        let outcomes: [AttestationOutcomeKind: Counter]
        let paused: Gauge
    }

    private let handles: [String: Handles]

    init(apps: [String]) {
        var handles: [String: Handles] = [:]
        for appId in apps {
            let label = [("app", appId)]
            let actions = Dictionary(uniqueKeysWithValues: AttestationRampAction.allCases.map { action in
                (action, Counter(label: MetricFamily.attestationRampSteps.name, dimensions: label + [("action", action.rawValue)]))
            })
            let outcomes = Dictionary(uniqueKeysWithValues: AttestationOutcomeKind.allCases.map { outcome in
                (outcome, Counter(label: MetricFamily.attestationOutcomes.name, dimensions: label + [("outcome", outcome.rawValue)]))
            })
            for counter in actions.values { counter.increment(by: 0) }
            for counter in outcomes.values { counter.increment(by: 0) }
            let paused = Gauge(label: MetricFamily.attestationRampPaused.name, dimensions: label)
            paused.record(0)
            handles[appId] = Handles(actions: actions, outcomes: outcomes, paused: paused)
        }
        self.handles = handles
    }

    func count(_ action: AttestationRampAction, appId: String) {
        handles[appId]?.actions[action]?.increment()
    }

    func count(_ outcome: AttestationOutcomeKind, appId: String) {
        handles[appId]?.outcomes[outcome]?.increment()
    }

    func publish(_ ramps: [AttestationRampRecord]) {
        for ramp in ramps {
            handles[ramp.appId]?.paused.record(ramp.state == AttestationRampState.paused.rawValue ? 1 : 0)
        }
    }
}
