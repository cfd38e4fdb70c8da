public import AttestGuardStore
/// One ramp period's attestation outcomes as the ramp reads them.
///
/// - attempts: reports of `attested`, `failed` and `rate_limited` (`unsupported` devices cannot attest and are left
///   out);
/// - successes: attestations the server accepted, at most the `attested` reports (an attestation Apple produced that
///   the server refused is no success, and a server count above the reports comes from clients that do not report);
/// - success rate: successes / attempts; rate-limited share: `rate_limited` / attempts (both 0 without attempts).
public struct AttestationPeriodOutcome: Sendable, Hashable {
    public var attempts: Int64
    public var successes: Int64
    public var rateLimited: Int64

    public init(attempts: Int64, successes: Int64, rateLimited: Int64) {
        self.attempts = attempts
        self.successes = successes
        self.rateLimited = rateLimited
    }

    public init(_ counts: AttestationOutcomeCounts) {
        attempts = counts[.attested] + counts[.failed] + counts[.rateLimited]
        successes = min(counts[.accepted], counts[.attested])
        rateLimited = counts[.rateLimited]
    }

    public var successRate: Double { attempts == 0 ? 0 : Double(successes) / Double(attempts) }
    public var rateLimitedShare: Double { attempts == 0 ? 0 : Double(rateLimited) / Double(attempts) }
}

/// What the controller did at a period boundary (the `action` label of `attestguard_attestation_ramp_steps_total`).
public enum AttestationRampAction: String, Sendable, Hashable, CaseIterable {
    case step
    case hold
    case pause
    case complete
}

extension AttestationRamp {
    /// The percentage, state and action after a period that counted `outcome`, from `percent` in `state`. A paused
    /// or complete ramp stays as it is; rate limiting pauses before success is weighed; too few attempts hold.
    public func evaluate(percent: Int, state: AttestationRampState, outcome: AttestationPeriodOutcome)
        -> (percent: Int, state: AttestationRampState, action: AttestationRampAction)?
    {
        switch state {
        case .paused, .complete: return nil
        case .ramping, .holding: break
        }
        guard outcome.attempts >= minimumAttempts else { return (percent, .holding, .hold) }
        if outcome.rateLimitedShare > maximumRateLimitedShare { return (percent, .paused, .pause) }
        guard outcome.successRate >= minimumSuccessRate else { return (percent, .holding, .hold) }
        let next = stepped(from: percent)
        return next >= 100 ? (100, .complete, .complete) : (next, .ramping, .step)
    }
}
