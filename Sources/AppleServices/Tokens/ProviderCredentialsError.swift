/// Why provider credentials could not be loaded; ``description`` never contains key material.
public struct ProviderCredentialsError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The stable, snake_case name of the failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The team id is empty or not ASCII letters and digits.
        public static let invalidTeamId = Code("provider_invalid_team_id")
        /// The key id is not 10 ASCII letters and digits.
        public static let invalidKeyId = Code("provider_invalid_key_id")
        /// The .p8 file could not be read.
        public static let keyFileUnreadable = Code("provider_key_file_unreadable")
        /// The environment variable that should hold the .p8 text is unset or empty.
        public static let environmentVariableMissing = Code("provider_key_variable_missing")
        /// The text is not a PEM PKCS #8 P-256 private key.
        public static let invalidPrivateKey = Code("provider_invalid_private_key")
    }

    public let code: Code
    private let reason: String
    private let file: String
    private let line: Int

    init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The code and a reason that names paths and variables but never key material.
    public var description: String { "\(code): \(reason)" }
    public var debugDescription: String { "\(code): \(reason) (\(file):\(line))" }
}
