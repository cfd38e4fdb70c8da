/// A configuration value that cannot be used: names the key (as written in the file; its environment variable
/// is `ATTESTGUARD_` + the key in upper snake case) and what is wrong. Never carries a secret's value.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var problem: String

    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String { "configuration \(key): \(problem)" }
}
