/// Why a ``FakeAppleServer`` could not be made or started.
public struct FakeAppleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable, snake_case name of the failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The configured provider public key is not a PEM P-256 public key.
        public static let invalidProviderKey = Code("fake_apple_invalid_provider_key")
        /// The server stopped before it listened.
        public static let notListening = Code("fake_apple_not_listening")
    }

    public let code: Code
    private let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code): \(reason)" }
}
