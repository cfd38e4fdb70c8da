/// The life cycle of a registered key. `superseded` (a newer key on the same device) and `revoked` are final.
public enum KeyStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case active
    case superseded
    case revoked

    public var description: String { rawValue }
}
