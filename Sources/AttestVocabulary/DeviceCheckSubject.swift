/// Whom stored DeviceCheck bits are filed under: the device token itself is single-use and never stored.
public struct DeviceCheckSubject: Sendable, Hashable, Codable {
    /// The kind of identifier the caller names.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case key
        case user
        case device
    }

    public var kind: Kind
    /// The identifier (a key id as base64, a user id, a device id).
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }
}
