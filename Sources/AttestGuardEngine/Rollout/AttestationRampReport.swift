public import Foundation

/// An app's automatic attestation rollout as an operator reads it (`GET /v1/admin/apps/{appId}/policy`, `ramp`): the
/// configured ramp with its stored state, or its start before anything is stored.
public struct AttestationRampReport: Sendable, Hashable {
    /// The ramp as configured (`apps.<app>.ramp`).
    public var ramp: AttestationRamp
    /// `ramping`, `holding`, `paused` or `complete`.
    public var state: String
    /// The percentage the ramp has reached (in force unless ``pinned``).
    public var percent: Int
    /// Whether a stored `attestationRequiredPercent` pins the percentage and stops the ramp until cleared.
    public var pinned: Bool
    public var lastStepAt: Date?
    /// The last period the controller evaluated, and what it counted there.
    public var periodStart: Date?
    public var period: AttestationPeriodOutcome
    /// When the controller next evaluates (the end of the current period).
    public var nextEvaluationAt: Date
}

extension AppCatalog {
    /// The rollout ramp of `app` as it stands at `now`; `nil` when the app has no ramp.
    public func rampReport(for app: AppPolicy, now: Date) -> AttestationRampReport? {
        guard let ramp = app.attestationRamp else { return nil }
        let record = self.ramp(for: app.appId)
        return AttestationRampReport(
            ramp: ramp, state: record?.state ?? AttestationRampState.ramping.rawValue, percent: record?.percent ?? ramp.startPercent,
            pinned: override(for: app.appId)?.attestationRequiredPercent != nil, lastStepAt: record?.lastStepAt,
            periodStart: record.map { Date(timeIntervalSince1970: TimeInterval($0.evaluatedPeriod)) },
            period: AttestationPeriodOutcome(
                attempts: record?.periodAttempts ?? 0, successes: record?.periodSuccesses ?? 0, rateLimited: record?.periodRateLimited ?? 0
            ),
            nextEvaluationAt: Date(timeIntervalSince1970: TimeInterval(ramp.periodStart(of: now) + ramp.period))
        )
    }
}
