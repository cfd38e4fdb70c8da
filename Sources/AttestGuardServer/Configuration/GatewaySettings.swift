/// What the forward-auth endpoint needs from the configuration: the route policy directory and the prefix of the
/// headers only the gateway sets (the authenticated user, the client's address, the body's hash).
public struct GatewaySettings: Sendable, Hashable {
    /// The directory of app route policies (`gateway.policyDirectory`); without one, forward-auth refuses every
    /// request as `route_not_covered`.
    public var policyDirectory: String?
    /// The prefix of the trusted gateway headers (`gateway.trustedHeaderPrefix`, default `X-AttestGuard-`): `User`,
    /// `Client-IP` and `Body-Sha256` follow it. The gateway deletes every client header with this prefix.
    public var trustedHeaderPrefix: String

    public static let defaultTrustedHeaderPrefix = "X-AttestGuard-"

    public init(policyDirectory: String? = nil, trustedHeaderPrefix: String = GatewaySettings.defaultTrustedHeaderPrefix) {
        self.policyDirectory = policyDirectory
        self.trustedHeaderPrefix = trustedHeaderPrefix
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
        self.init(policyDirectory: gateway.string("policyDirectory"), trustedHeaderPrefix: prefix)
    }
}
