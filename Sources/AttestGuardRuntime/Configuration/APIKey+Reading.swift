extension APIKey {
    /// Reads one API key (`apiKeys.<name>.*`): its secret (by file or environment variable, never inline), scopes
    /// and the apps it may touch (`["*"]` or none listed: every app).
    init(name: String, reading key: ConfigValues, environment: [String: String]) throws {
        guard let secret = try key.secret("secret", environment: environment) else {
            throw ConfigurationError(key: key.path("secretFile"), "API key \(name) needs secretFile or secretEnv", code: .missingSecret)
        }
        guard secret.count >= 16 else {
            throw ConfigurationError(key: key.path("secretFile"), "API key \(name) is shorter than 16 characters")
        }
        let scopes = try key.stringArray("scopes").map { scope in
            guard let parsed = Scope(rawValue: scope) else {
                throw ConfigurationError(key: key.path("scopes"), "unknown scope \(scope)")
            }
            return parsed
        }
        let apps = key.stringArray("apps")
        self.init(name: name, secret: secret, scopes: Set(scopes), apps: apps.isEmpty || apps == ["*"] ? nil : Set(apps))
    }
}
