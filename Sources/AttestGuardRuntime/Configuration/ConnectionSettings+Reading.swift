extension ConnectionSettings {
    /// Reads the connection bounds from `server.*` (the defaults are ``ConnectionSettings/init()``'s).
    init(reading values: ConfigValues) throws {
        self.init()
        idleTimeout = .seconds(try values.int("idleTimeoutSeconds", default: 75, range: 1...86_400))
        headerReadTimeout = .seconds(try values.int("headerReadTimeoutSeconds", default: 10, range: 1...300))
        bodyReadTimeout = .seconds(try values.int("bodyReadTimeoutSeconds", default: 10, range: 1...300))
        maxConnections = try values.int("maxConnections", default: 1_024, range: 1...1_000_000)
        shutdownTimeout = .seconds(try values.int("shutdownTimeoutSeconds", default: 10, range: 0...3_600))
        shutdownFlushTimeout = .seconds(try values.int("shutdownFlushTimeoutSeconds", default: 5, range: 0...3_600))
    }
}
