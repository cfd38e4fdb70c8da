import AttestGuardEngine
import AttestGuardStorage
import Foundation
import Hummingbird

/// The operator's hand on an app's automatic attestation rollout, beside the live policy route:
/// `POST /v1/admin/apps/{appId}/policy/ramp/resume` (scope `admin`, limited to the key's apps) sets a paused ramp
/// ramping again, so that the next period boundary evaluates the period then ended; it answers the app's policy as
/// `GET .../policy` does. A ramp that is not paused (or not started) is left as it is; an app without a ramp is 404
/// `ramp_not_configured`. To pin the percentage, `PUT .../policy` with `attestationRequiredPercent` (the ramp stops
/// stepping until the value is cleared).
struct AttestationRampRoutes {
    let engine: Engine
    let policy: AppPolicyRoutes

    func register(on admin: RouterGroup<AttestGuardRequestContext>) {
        admin.post("ramp/resume", use: resume)
    }

    @Sendable func resume(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let configured = try policy.configuredApp(context)
        guard configured.attestationRamp != nil else {
            throw APIError(.notFound, code: .rampNotConfigured, "app \(configured.appId) has no attestation rollout ramp (apps.<app>.ramp)")
        }
        let controller = AttestationRampController(store: engine.store, apps: engine.apps, clock: engine.clock, logger: context.logger)
        _ = try await controller.resume(appId: configured.appId, by: context.apiKey?.name ?? "-")
        return try policy.response(for: configured)
    }

    /// The `ramp` of the policy body: the configured ramp with its stored state (its start before anything is stored).
    static func body(app: AppPolicy, record: AttestationRampRecord?, override: AppPolicyOverride?, now: Date) -> AppPolicyBody.Ramp? {
        guard let ramp = app.attestationRamp else { return nil }
        let outcome = AttestationPeriodOutcome(
            attempts: record?.periodAttempts ?? 0, successes: record?.periodSuccesses ?? 0, rateLimited: record?.periodRateLimited ?? 0
        )
        return AppPolicyBody.Ramp(
            state: record?.state ?? AttestationRampState.ramping.rawValue, percent: record?.percent ?? ramp.startPercent,
            pinned: override?.attestationRequiredPercent != nil, lastStepAt: record?.lastStepAt,
            periodStart: record.map { Date(timeIntervalSince1970: TimeInterval($0.evaluatedPeriod)) },
            periodAttempts: outcome.attempts, periodSuccessRate: outcome.successRate, periodRateLimitedShare: outcome.rateLimitedShare,
            nextEvaluationAt: Date(timeIntervalSince1970: TimeInterval(ramp.periodStart(of: now) + ramp.period)),
            settings: .init(
                startPercent: ramp.startPercent, factor: ramp.factor, periodSeconds: ramp.period, minimumSuccessRate: ramp.minimumSuccessRate,
                maximumRateLimitedShare: ramp.maximumRateLimitedShare, minimumAttempts: ramp.minimumAttempts
            )
        )
    }
}
