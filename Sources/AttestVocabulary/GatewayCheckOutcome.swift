/// What forward-auth found of a protected request, as `attestguard_gateway_checks_total` counts it per app and
/// route: before an operator turns a route from `score` to `require`, the counts say how many requests it would
/// refuse and why.
public enum GatewayCheckOutcome: String, Sendable, CaseIterable, CustomStringConvertible {
    /// An `open` route: passed without a check.
    case open
    /// An assertion that verified.
    case verified
    /// A session token a `token` route admitted.
    case token
    /// A debug token an app that accepts them admitted.
    case debug
    /// No assertion, scored without one.
    case unattested
    /// An assertion the route asked for and the request lacked.
    case missing
    /// An assertion that failed a check: malformed, an unknown or revoked key, a signature or binding mismatch.
    case invalid
    /// An assertion or challenge used before.
    case replayed
    /// A verdict the route refuses (or would refuse, in monitor mode).
    case denied
    /// Anything else: rate limits, an unavailable store, the gateway's own faults.
    case error

    /// The outcome of a refusal's code.
    public init(refusing code: ErrorCode, credentialFault: Bool) {
        switch code {
        case .assertionAlreadyAccepted, .challengeUsed: self = .replayed
        case .assertionMissing, .sessionTokenMissing: self = .missing
        case .requestDenied: self = .denied
        default: self = credentialFault ? .invalid : .error
        }
    }

    public var description: String { rawValue }

    /// Whether the answer showed what a `require` route asks for: an assertion that verified, or a debug token of an
    /// app that accepts them.
    public var satisfiesRequire: Bool { self == .verified || self == .debug }
}
