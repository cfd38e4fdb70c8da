import AttestVocabulary

/// A failure of the store itself (not a rejected state change): unreachable database, wrong schema, a second
/// process on an embedded database, or a row that cannot be decoded.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, snake_case reason.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The database could not be reached or did not answer in time; retrying later may succeed.
        public static let unavailable = Code(ErrorCode.storeUnavailable.rawValue)
        /// The database holds a newer schema than this build knows.
        public static let schemaTooNew = Code("schema_too_new")
        /// The database misses migrations this build needs (run `attestguard migrate`).
        public static let schemaOutdated = Code("schema_outdated")
        /// Another process holds the embedded database.
        public static let locked = Code("store_locked")
        /// The embedded database file does not exist, and the caller only reads (it is never created).
        public static let notFound = Code("store_not_found")
        /// A configuration value (URL, path) is unusable.
        public static let invalidConfiguration = Code("invalid_store_configuration")
        /// A stored row could not be read back.
        public static let corruptRow = Code("corrupt_row")
        /// The database rejected a statement.
        public static let queryFailed = Code("query_failed")
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code): \(detail)" }
}
