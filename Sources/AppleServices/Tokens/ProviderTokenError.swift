/// A provider token could not be signed (the key was accepted when the credentials were made, so this is rare).
public struct ProviderTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable, snake_case name of the failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// JWTKit refused to sign.
        public static let signingFailed = Code("provider_token_signing_failed")
    }

    public let code: Code
    private let reason: String

    init(_ code: Code = .signingFailed, reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code): \(reason)" }
}
