public import AsyncHTTPClient

extension HTTPClient {
    /// The client simulated traffic sends through: one connection per concurrent request up to 64 per host, and 30 s
    /// to get one. The simulated apps send at once, and with the library's defaults (8 connections, 10 s) a request
    /// could wait in the client's own queue behind a burst on a busy machine and fail there
    /// (`getConnectionFromPoolTimeout`) without ever reaching the server.
    public static func forSimulatedTraffic() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64
        )
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
