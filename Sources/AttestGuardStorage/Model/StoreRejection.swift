/// Why the store refused a state change: one precise, stable code per failed condition. Rejections are returned
/// values, not thrown errors; the transaction that produced one changed nothing.
public struct StoreRejection: Sendable, Hashable, CustomStringConvertible {
    /// A stable, snake_case reason.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let challengeNotFound = Code("challenge_not_found")
        public static let challengeUsed = Code("challenge_used")
        public static let challengeExpired = Code("challenge_expired")
        /// The challenge exists but was issued for another app, purpose, user or key.
        public static let challengeMismatch = Code("challenge_mismatch")
        public static let keyNotFound = Code("key_not_found")
        public static let keyRevoked = Code("key_revoked")
        public static let keySuperseded = Code("key_superseded")
        public static let keyUserMismatch = Code("key_user_mismatch")
        public static let keyAlreadyRegistered = Code("key_already_registered")
        public static let counterNotIncreasing = Code("counter_not_increasing")
        public static let assertionAlreadyAccepted = Code("assertion_already_accepted")
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code): \(detail)" }
}
