/// A failure to decode CBOR, with the byte offset where decoding stopped.
///
/// Equality compares the ``code`` only, so tests and callers can match on it.
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable machine-readable code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Storage: String, Sendable {
            case unexpectedEnd = "unexpected_end"
            case reservedAdditionalInformation = "reserved_additional_information"
            case indefiniteLengthNotAllowed = "indefinite_length_not_allowed"
            case invalidIndefiniteChunk = "invalid_indefinite_chunk"
            case unexpectedBreak = "unexpected_break"
            case invalidUTF8 = "invalid_utf8"
            case duplicateMapKey = "duplicate_map_key"
            case invalidSimpleValue = "invalid_simple_value"
            case lengthExceedsInput = "length_exceeds_input"
            case depthLimitExceeded = "depth_limit_exceeded"
            case itemLimitExceeded = "item_limit_exceeded"
            case sizeLimitExceeded = "size_limit_exceeded"
            case trailingBytes = "trailing_bytes"
        }

        private let storage: Storage
        private init(_ storage: Storage) { self.storage = storage }

        /// The input ended in the middle of an item.
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// Additional information 28, 29 or 30, which RFC 8949 reserves.
        public static let reservedAdditionalInformation = Code(.reservedAdditionalInformation)
        /// Indefinite length on a major type that cannot have it (integers, tags).
        public static let indefiniteLengthNotAllowed = Code(.indefiniteLengthNotAllowed)
        /// A chunk of an indefinite-length string is not a definite string of the same major type.
        public static let invalidIndefiniteChunk = Code(.invalidIndefiniteChunk)
        /// A "break" (0xFF) outside an indefinite-length item.
        public static let unexpectedBreak = Code(.unexpectedBreak)
        /// A text string that is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// The same key twice in one map.
        public static let duplicateMapKey = Code(.duplicateMapKey)
        /// A two-byte simple value below 32, which RFC 8949 forbids.
        public static let invalidSimpleValue = Code(.invalidSimpleValue)
        /// A declared length or count larger than the bytes that remain.
        public static let lengthExceedsInput = Code(.lengthExceedsInput)
        /// Nesting deeper than the decoder's limit.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// More data items than the decoder's limit.
        public static let itemLimitExceeded = Code(.itemLimitExceeded)
        /// Input larger than the decoder's limit.
        public static let sizeLimitExceeded = Code(.sizeLimitExceeded)
        /// Bytes left over after the one item that was expected.
        public static let trailingBytes = Code(.trailingBytes)

        public var description: String { storage.rawValue }
    }

    /// The stable code of the failure.
    public let code: Code
    /// The byte offset in the input at which the failure was detected.
    public let offset: Int
    private let reason: String

    init(_ code: Code, at offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(code) at byte \(offset): \(reason)" }

    public static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
