public import Foundation

/// An app's automatic attestation rollout (`apps.<app>.ramp.*`): the attestation-required percentage starts at
/// `startPercent` and, at each period boundary, is multiplied by `factor` while the period's attestation success rate
/// is at least `minimumSuccessRate`; it holds when the rate is lower or the period counted fewer than
/// `minimumAttempts` attempts, pauses when the share of rate-limited attempts passes `maximumRateLimitedShare`, and
/// never passes 100. An app without a ramp keeps its configured percentage.
public struct AttestationRamp: Sendable, Hashable {
    public var startPercent: Int
    public var factor: Double
    /// The period in seconds; periods are aligned to multiples of it since 1970 (a day steps at 00:00 UTC).
    public var period: Int64
    public var minimumSuccessRate: Double
    public var maximumRateLimitedShare: Double
    /// The fewest attempts (reports other than `unsupported`) a period needs before the ramp may step.
    public var minimumAttempts: Int64

    public static let defaultStartPercent = 1
    public static let defaultFactor = 2.0
    public static let defaultPeriod: Int64 = 86_400
    public static let defaultMinimumSuccessRate = 0.95
    public static let defaultMaximumRateLimitedShare = 0.05
    public static let defaultMinimumAttempts: Int64 = 100

    public init(
        startPercent: Int = defaultStartPercent, factor: Double = defaultFactor, period: Int64 = defaultPeriod,
        minimumSuccessRate: Double = defaultMinimumSuccessRate, maximumRateLimitedShare: Double = defaultMaximumRateLimitedShare,
        minimumAttempts: Int64 = defaultMinimumAttempts
    ) {
        self.startPercent = min(max(startPercent, 0), 100)
        self.factor = factor
        self.period = max(period, 1)
        self.minimumSuccessRate = minimumSuccessRate
        self.maximumRateLimitedShare = maximumRateLimitedShare
        self.minimumAttempts = max(minimumAttempts, 1)
    }

    /// The start (seconds since 1970) of the period holding `date`.
    public func periodStart(of date: Date) -> Int64 {
        Self.periodStart(of: date, period: period)
    }

    /// The start of the period of length `period` seconds holding `date`.
    public static func periodStart(of date: Date, period: Int64) -> Int64 {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return seconds - ((seconds % period) + period) % period
    }

    /// The percentage after one step up from `percent`: multiplied by the factor, rounded up, at least one more,
    /// at most 100.
    public func stepped(from percent: Int) -> Int {
        let next = Int((Double(percent) * factor).rounded(.up))
        return min(100, max(next, percent + 1))
    }
}

/// Where an app's ramp stands (`attestation_ramps.state`).
public enum AttestationRampState: String, Sendable, Hashable, CaseIterable {
    /// The last period met the bounds (or none was evaluated yet): the next boundary may step.
    case ramping
    /// The last period's success rate was below the bound, or it counted too few attempts: the percentage holds.
    case holding
    /// Rate-limited attempts passed their bound: the percentage holds until an operator resumes the ramp.
    case paused
    /// The percentage reached 100.
    case complete
}
