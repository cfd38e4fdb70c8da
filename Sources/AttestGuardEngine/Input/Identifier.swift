import AttestVocabulary

/// An opaque identifier a caller names: a user id, a device id, the id of a DeviceCheck subject. 1 to 256 UTF-8
/// bytes, none of them part of a control character (C0, DEL, C1) or an invisible one (a default-ignorable code
/// point such as U+200B).
///
/// Two identifiers are equal when their bytes are: the NFC and NFD forms of one name are two users, as they are
/// to SQL, quotas and velocity. Nothing normalises them.
///
/// It cannot hold another value: each wire (the JSON routes, the CLI) builds one from the text it received, and
/// the engine takes it as it is, so the check runs once, here.
public struct Identifier: Sendable, Hashable, CustomStringConvertible {
    /// The longest identifier, in UTF-8 bytes.
    public static let maximumLength = 256

    /// The identifier's text.
    public let value: String

    /// Checks `value`.
    /// - Parameter field: The field that carried it (`userId`), for the error.
    /// - Throws: `missing_field` when empty; `invalid_field` when too long or not printable.
    public init(_ value: String, field: String) throws(EngineError) {
        guard !value.isEmpty else {
            throw EngineError.invalid(.missingField, "\(field) is required")
        }
        guard Self.isPrintable(value) else {
            throw EngineError.invalid(.invalidField, "\(field) must be 1-\(Self.maximumLength) bytes of printable characters")
        }
        self.value = value
    }

    /// An identifier read back from the store, which holds only identifiers that passed the check.
    init(stored value: String) {
        self.value = value
    }

    public var description: String { value }

    public static func == (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.value.hasSameBytes(as: rhs.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value.utf8.count)
        let hashed: Void? = value.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in value.utf8 { hasher.combine(byte) }
        }
    }

    private static func isPrintable(_ value: String) -> Bool {
        // Printable ASCII (nearly every id) needs no Unicode property lookup: no such scalar is default-ignorable.
        guard value.utf8.count <= maximumLength else { return false }
        if value.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return true }
        return value.unicodeScalars.allSatisfy {
            !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value)
        }
    }
}
