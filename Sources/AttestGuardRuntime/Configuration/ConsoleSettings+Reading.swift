extension ConsoleSettings {
    /// Reads `console.*`: the session secret (by file or environment variable, never inline, 32 characters or more)
    /// and the session's lifetime in minutes (1 to 10,080, a week).
    init(reading console: ConfigValues, environment: [String: String]) throws {
        let secret = try console.secret("sessionSecret", environment: environment)
        if let secret, secret.count < Self.minimumSecretLength {
            throw ConfigurationError(key: console.path("sessionSecretFile"), "the console's session secret must be at least \(Self.minimumSecretLength) characters")
        }
        self.init(sessionSecret: secret, sessionMinutes: try console.int("sessionMinutes", default: 60, range: 1...10_080))
    }
}
