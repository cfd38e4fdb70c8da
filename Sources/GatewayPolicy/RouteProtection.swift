/// What a route asks of a request: an assertion, a session token or an assertion, a score without either, nothing, or
/// an assertion only from users inside the app's attestation-required rollout (the others are scored). The raw values
/// are the policy files'.
public enum RouteProtection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A valid assertion or the request is refused; a client's `X-AppAttest-Status: unsupported` does not replace it.
    case require
    /// Scored (with the assertion when there is one), never refused for lacking one.
    case score
    /// Passed without AttestGuard.
    case open
    /// A valid session token (`X-AppAttest-Token`, checked without a store round trip) or a valid assertion, or the
    /// request is refused; scored only where the route says `scoreTokens: true`.
    case token
    /// `require` for users inside the app's attestation-required percentage, `score` for the others.
    case requireForRollout = "require-for-rollout"

    public var description: String { rawValue }

    /// How much the protection asks of a request, from `open` (0) to `require` (4): a request passed under a
    /// protection must never reach a path whose own protection is stricter.
    public var strictness: Int {
        switch self {
        case .open: 0
        case .score: 1
        case .token: 2
        case .requireForRollout: 3
        case .require: 4
        }
    }
}

/// Whether a `review` verdict lets the request through (marked with the verdict headers) or refuses it.
public enum ReviewHandling: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case pass
    case refuse

    public var description: String { rawValue }
}
