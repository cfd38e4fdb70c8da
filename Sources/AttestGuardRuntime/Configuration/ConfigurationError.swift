/// A configuration value that cannot be used: names the key (as written in the file; its environment variable
/// is `ATTESTGUARD_` + the key in upper snake case), what kind of problem it is (``code``) and what is wrong.
/// Never carries a secret's value.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases (`attestguard config check --json` prints it).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Kind: String {
            case invalidValue = "invalid_value"
            case missingValue = "missing_value"
            case missingSecret = "missing_secret"
            case inlineSecret = "inline_secret"
            case duplicateSecret = "duplicate_secret"
            case unreadableFile = "unreadable_file"
            case unknownKey = "unknown_key"
            case unknownVariable = "unknown_variable"
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// A value that does not parse, is out of range or has the wrong shape (a list for one value).
        public static let invalidValue = Code(.invalidValue)
        /// A required value that is not set.
        public static let missingValue = Code(.missingValue)
        /// A secret that is required but not given, or whose environment variable is unset or empty.
        public static let missingSecret = Code(.missingSecret)
        /// A secret written in the file itself.
        public static let inlineSecret = Code(.inlineSecret)
        /// Two API keys with one secret: a bearer token must name exactly one key.
        public static let duplicateSecret = Code(.duplicateSecret)
        /// A file the configuration names (or the configuration file itself) that cannot be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// A key in the file the server does not read.
        public static let unknownKey = Code(.unknownKey)
        /// An `ATTESTGUARD_*` environment variable the server does not read (a warning, never a refusal).
        public static let unknownVariable = Code(.unknownVariable)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    /// The key's dotted path (for ``Code/unknownVariable``, the variable).
    public var key: String
    public var problem: String
    /// The valid key (or name, or variable) most likely meant, for an unknown one.
    public var suggestion: String?

    public init(key: String, _ problem: String, code: Code = .invalidValue, suggestion: String? = nil) {
        self.code = code
        self.key = key
        self.problem = problem
        self.suggestion = suggestion
    }

    public var description: String { "configuration \(key): \(problem)" + (suggestion.map { "; did you mean \($0)?" } ?? "") }
}
