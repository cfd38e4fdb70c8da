/// What the forward-auth endpoint needs from the configuration: the route policy directory and the prefix of the
/// headers only the gateway sets (the authenticated user, the client's address, the body's hash).
public struct GatewaySettings: Sendable, Hashable {
    /// The directory of app route policies (`gateway.policyDirectory`); without one, forward-auth refuses every
    /// request as `route_not_covered`.
    public var policyDirectory: String?
    /// The prefix of the trusted gateway headers (`gateway.trustedHeaderPrefix`, default `X-AttestGuard-`): `User`,
    /// `Client-IP` and `Body-Sha256` follow it. The gateway deletes every client header with this prefix.
    public var trustedHeaderPrefix: String
    /// How long forward-auth may take before it answers 503 `store_unavailable` (`gateway.answerWithinMilliseconds`,
    /// default 1,000): shorter than the gateway's read timeout (2 s in the shipped configurations), so that a slow
    /// or lost database reaches the app as AttestGuard's own refusal, which stays closed, and never as a gateway
    /// timeout, which a fail-open gateway lets through.
    public var answerWithin: Duration

    public static let defaultTrustedHeaderPrefix = "X-AttestGuard-"

    public init(
        policyDirectory: String? = nil, trustedHeaderPrefix: String = GatewaySettings.defaultTrustedHeaderPrefix, answerWithin: Duration = .seconds(1)
    ) {
        self.policyDirectory = policyDirectory
        self.trustedHeaderPrefix = trustedHeaderPrefix
        self.answerWithin = answerWithin
    }
}

extension GatewaySettings {
    /// Reads `gateway.*`; the prefix must be a header-name prefix (letters, digits and `-`, 2-64 characters).
    init(reading gateway: ConfigValues) throws {
        let prefix = gateway.string("trustedHeaderPrefix", default: Self.defaultTrustedHeaderPrefix)
        let allowed = prefix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        guard allowed, (2...64).contains(prefix.utf8.count) else {
            throw ConfigurationError(key: gateway.path("trustedHeaderPrefix"), "must be 2-64 letters, digits and -, like X-AttestGuard-")
        }
        self.init(
            policyDirectory: gateway.string("policyDirectory"), trustedHeaderPrefix: prefix,
            answerWithin: .milliseconds(try gateway.int("answerWithinMilliseconds", default: 1_000, range: 100...60_000))
        )
    }
}
