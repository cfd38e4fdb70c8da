public import AttestVocabulary

/// Why the store refused a state change: one precise, stable code per failed condition. Rejections are returned
/// values, not thrown errors; the transaction that produced one changed nothing.
public struct StoreRejection: Sendable, Hashable, CustomStringConvertible {
    /// The failed condition: a closed subset of the registry.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The registered code this condition reports.
        public let errorCode: ErrorCode
        private init(_ errorCode: ErrorCode) { self.errorCode = errorCode }
        public var description: String { errorCode.description }

        public static let challengeNotFound = Code(.challengeNotFound)
        public static let challengeUsed = Code(.challengeUsed)
        public static let challengeExpired = Code(.challengeExpired)
        /// The challenge exists but was issued for another app, purpose, user or key.
        public static let challengeMismatch = Code(.challengeMismatch)
        public static let keyNotFound = Code(.keyNotFound)
        public static let keyRevoked = Code(.keyRevoked)
        public static let keySuperseded = Code(.keySuperseded)
        public static let keyUserMismatch = Code(.keyUserMismatch)
        public static let keyAlreadyRegistered = Code(.keyAlreadyRegistered)
        public static let counterNotIncreasing = Code(.counterNotIncreasing)
        public static let assertionAlreadyAccepted = Code(.assertionAlreadyAccepted)
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code): \(detail)" }
}
