/// What a challenge may be used for: registering a key or signing one request with it.
public enum ChallengePurpose: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case attestation
    case assertion

    public var description: String { rawValue }
}
