/// An opaque identifier a caller names: a user id, a device id, the id of a DeviceCheck subject. 1 to 256
/// characters, none of them a control character (C0, DEL, C1) or an invisible one (a default-ignorable code point
/// such as U+200B).
///
/// It cannot hold another value: each wire (the JSON routes, the CLI) builds one from the text it received, and
/// the engine takes it as it is, so the check runs once, here.
public struct Identifier: Sendable, Hashable, CustomStringConvertible {
    /// The longest identifier, in Unicode scalars.
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
            throw EngineError.invalid(.invalidField, "\(field) must be 1-\(Self.maximumLength) printable characters")
        }
        self.value = value
    }

    /// An identifier read back from the store, which holds only identifiers that passed the check.
    init(stored value: String) {
        self.value = value
    }

    public var description: String { value }

    private static func isPrintable(_ value: String) -> Bool {
        // Printable ASCII (nearly every id) needs no Unicode property lookup: no such scalar is default-ignorable.
        if value.utf8.count <= maximumLength, value.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return true }
        return value.unicodeScalars.count <= maximumLength && value.unicodeScalars.allSatisfy {
            !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value)
        }
    }
}
