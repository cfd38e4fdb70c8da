public import AttestGuardStorage
import Foundation

/// Counts attestation outcomes for the automatic rollout: one atomic increment of the app's counter for the ramp
/// period holding now. Only apps with a ramp are counted (the counters serve the ramp alone, and an app without one
/// costs no write); an outcome of any other app is accepted and dropped.
public struct AttestationOutcomes: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock

    /// Counts one `outcome` of `appId`; returns whether it was counted (false: the app does not ramp).
    @discardableResult
    public func count(_ outcome: AttestationOutcomeKind, appId: String) async throws -> Bool {
        guard let ramp = apps.configuredPolicy(for: appId)?.attestationRamp else { return false }
        try await store.countAttestationOutcome(appId: appId, periodStart: ramp.periodStart(of: clock.now()), outcome: outcome, count: 1)
        apps.rampMetrics.count(outcome, appId: appId)
        return true
    }
}

extension Engine {
    /// The rollout's outcome counters.
    public var attestationOutcomes: AttestationOutcomes { AttestationOutcomes(store: store, apps: apps, clock: clock) }
}
