import AttestGuardEngine
import Foundation
import Hummingbird

/// The operator's hand on an app's automatic attestation rollout, beside the live policy route:
/// `POST /v1/admin/apps/{appId}/policy/ramp/resume` (scope `admin`, limited to the key's apps) sets a paused ramp
/// ramping again, so that the next period boundary evaluates the period then ended; it answers the app's policy as
/// `GET .../policy` does. A ramp that is not paused (or not started) is left as it is; an app without a ramp is 404
/// `ramp_not_configured`. To pin the percentage, `PUT .../policy` with `attestationRequiredPercent` (the ramp stops
/// stepping until the value is cleared).
struct AttestationRampRoutes {
    let policy: AppPolicyRoutes

    func register(on admin: RouterGroup<AttestGuardRequestContext>) {
        admin.post("ramp/resume", use: resume)
    }

    @Sendable func resume(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let configured = try policy.configuredApp(context)
        try await policy.changes.resumeRamp(of: configured, by: context.apiKey?.name ?? "-")
        return try policy.response(for: configured)
    }
}

extension AppPolicyBody.Ramp {
    /// The `ramp` of the policy body.
    init(_ report: AttestationRampReport) {
        let ramp = report.ramp
        self.init(
            state: report.state, percent: report.percent, pinned: report.pinned, lastStepAt: report.lastStepAt,
            periodStart: report.periodStart, periodAttempts: report.period.attempts, periodSuccessRate: report.period.successRate,
            periodRateLimitedShare: report.period.rateLimitedShare, nextEvaluationAt: report.nextEvaluationAt,
            settings: .init(
                startPercent: ramp.startPercent, factor: ramp.factor, periodSeconds: ramp.period, minimumSuccessRate: ramp.minimumSuccessRate,
                maximumRateLimitedShare: ramp.maximumRateLimitedShare, minimumAttempts: ramp.minimumAttempts
            )
        )
    }
}
