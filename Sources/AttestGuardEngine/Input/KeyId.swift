public import Foundation

/// An App Attest key id: the SHA-256 of the key's public key, 32 bytes.
///
/// It cannot hold another value: each wire builds one from the text it received (standard base64 in a body, either
/// alphabet in a path), and the engine takes it as it is.
public struct KeyId: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: Data
    /// Standard base64 with padding, as bodies and the DeviceCheck subjects of kind key write it: written once, as a
    /// verdict names its key several times (the DeviceCheck subject, the decision log).
    public let base64: String

    /// A key id from its bytes.
    /// - Throws: `invalid_field` unless there are 32.
    public init(bytes: Data, field: String = "keyId") throws(EngineError) {
        guard bytes.count == 32 else {
            throw EngineError.invalid(.invalidField, "\(field) must be 32 bytes (SHA-256 of the public key)")
        }
        self.bytes = bytes
        self.base64 = bytes.base64EncodedString()
    }

    /// A key id as a body writes it: standard base64 with padding (44 characters), as the contract does.
    /// - Throws: `invalid_field` for any other form or length; `malformed_base64` when it does not decode.
    public init(base64 text: String, field: String = "keyId") throws(EngineError) {
        // Bytes, not Characters (grapheme breaking on every request's key id); a base64url byte followed by a combining
        // mark is refused here as well, and would not decode anyway.
        guard text.utf8.count == 44, text.utf8.last == UInt8(ascii: "="),
            !text.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            throw EngineError.invalid(.invalidField, "\(field) must be the standard base64 of 32 bytes (44 characters)")
        }
        try self.init(pathText: text, field: field)
    }

    /// A key id as a path writes it: base64url without padding, or standard base64 (percent-decoded already).
    /// - Throws: `invalid_field` when too long or not 32 bytes; `malformed_base64` when it does not decode.
    public init(pathText text: String, field: String = "keyId") throws(EngineError) {
        try self.init(bytes: try Base64Field.decode(text, field: field, maximumBytes: 64), field: field)
    }

    /// A key id read back from the store, which holds only 32-byte ids.
    init(stored bytes: Data) {
        self.bytes = bytes
        self.base64 = bytes.base64EncodedString()
    }

    public var description: String { base64 }

    public static func == (lhs: KeyId, rhs: KeyId) -> Bool { lhs.bytes == rhs.bytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
