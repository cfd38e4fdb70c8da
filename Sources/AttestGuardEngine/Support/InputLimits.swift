/// Bounds on caller-supplied identifiers, checked before anything is stored.
enum InputLimits {
    static let maximumIdentifierLength = 256

    /// A required opaque identifier (user id, device id): 1 to 256 characters, no control characters (C0, DEL, C1) and
    /// no invisible ones (default-ignorable code points such as U+200B).
    static func identifier(_ value: String, field: String) throws(EngineError) {
        guard !value.isEmpty else {
            throw EngineError.invalid(.missingField, "\(field) is required")
        }
        // Printable ASCII (nearly every id) needs no Unicode property lookup: no such scalar is default-ignorable.
        if value.utf8.count <= maximumIdentifierLength, value.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return }
        guard value.unicodeScalars.count <= maximumIdentifierLength, value.unicodeScalars.allSatisfy({ !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }) else {
            throw EngineError.invalid(.invalidField, "\(field) must be 1-\(maximumIdentifierLength) printable characters")
        }
    }

    /// A 32-byte identifier (key id, challenge).
    static func bytes32(_ count: Int, field: String) throws(EngineError) {
        guard count == 32 else {
            throw EngineError.invalid(.invalidField, "\(field) must be 32 bytes, got \(count)")
        }
    }
}
