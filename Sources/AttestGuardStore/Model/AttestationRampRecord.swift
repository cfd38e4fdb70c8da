public import Foundation

/// What the attestation outcome counters count (`attestation_outcomes.outcome`): the attempts the app-side library
/// reports, split by what Apple answered, and the attestations the server accepted.
public enum AttestationOutcomeKind: String, Sendable, Hashable, CaseIterable {
    /// `attestKey` returned an attestation object.
    case attested
    /// `attestKey` failed with an error that is not rate limiting.
    case failed
    /// `attestKey` failed because Apple's service was unavailable or limiting the app (`DCError.serverUnavailable`).
    case rateLimited = "rate_limited"
    /// App Attest is not supported on the device (`DCAppAttestService.isSupported` false).
    case unsupported
    /// The server verified and registered a new key (counted by the server, never reported by the app).
    case accepted
}

/// One app's outcome counters for one ramp period.
public struct AttestationOutcomeCounts: Sendable, Hashable {
    public var counts: [AttestationOutcomeKind: Int64]

    public init(_ counts: [AttestationOutcomeKind: Int64] = [:]) {
        self.counts = counts
    }

    public subscript(kind: AttestationOutcomeKind) -> Int64 {
        get { counts[kind] ?? 0 }
        set { counts[kind] = newValue }
    }
}

/// One app's automatic attestation rollout as stored: the percentage it has reached and the last period it evaluated.
public struct AttestationRampRecord: Sendable, Hashable {
    public var appId: String
    /// 0-100.
    public var percent: Int
    /// `ramping`, `holding`, `paused` or `complete`.
    public var state: String
    /// The start (seconds since 1970) of the last period the controller evaluated.
    public var evaluatedPeriod: Int64
    /// What that period counted: attempts (reports other than `unsupported`), successes and rate-limited attempts.
    public var periodAttempts: Int64
    public var periodSuccesses: Int64
    public var periodRateLimited: Int64
    /// When the percentage last changed by a step.
    public var lastStepAt: Date?
    /// How many times the row was written; a write lands only on the revision it read.
    public var revision: Int64
    public var updatedAt: Date
    /// `ramp` for the controller, else the API key name of the operator who resumed it.
    public var updatedBy: String

    public init(
        appId: String, percent: Int, state: String, evaluatedPeriod: Int64, periodAttempts: Int64 = 0, periodSuccesses: Int64 = 0,
        periodRateLimited: Int64 = 0, lastStepAt: Date? = nil, revision: Int64 = 1, updatedAt: Date, updatedBy: String
    ) {
        self.appId = appId
        self.percent = percent
        self.state = state
        self.evaluatedPeriod = evaluatedPeriod
        self.periodAttempts = periodAttempts
        self.periodSuccesses = periodSuccesses
        self.periodRateLimited = periodRateLimited
        self.lastStepAt = lastStepAt
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}
