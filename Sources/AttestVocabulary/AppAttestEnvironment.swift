/// The App Attest environment a key was attested in, read from the authenticator data's aaguid.
///
/// Development and production keys and receipts never mix: each is stored with its key and
/// redeemed at its own Apple host.
public enum AppAttestEnvironment: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case development
    case production

    /// The 16-byte aaguid Apple writes for this environment.
    public var aaguid: [UInt8] {
        switch self {
        case .development: Array("appattestdevelop".utf8)
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        }
    }

    /// The environment an aaguid names, or `nil` for any other value.
    public init?(aaguid: some Collection<UInt8>) {
        guard let match = Self.allCases.first(where: { $0.aaguid.elementsEqual(aaguid) }) else { return nil }
        self = match
    }

    public var description: String { rawValue }
}
