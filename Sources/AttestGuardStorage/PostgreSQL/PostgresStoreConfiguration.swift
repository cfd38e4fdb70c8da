import Foundation
public import PostgresNIO

/// How to reach PostgreSQL: a `postgres://user:password@host:port/database?sslmode=...` URL, the pool size and
/// how long a query may wait for a connection and an answer before the store reports itself unavailable.
///
/// A busy process wants `minimumConnections` equal to `maximumConnections` and no keep-alive: PostgresNIO's pool
/// arms an idle-timeout timer (above the minimum) and a keep-alive timer each time a connection goes back to the
/// pool, as `Task.sleep`s that the next lease cancels, and a cancelled sleep keeps its memory until its original
/// deadline (swiftlang/swift#60441). With the defaults (60 s, 30 s), a busy pool keeps every sleep of the last
/// minute alive, so its memory grows with the query rate.
public struct PostgresStoreConfiguration: Sendable {
    public var client: PostgresClient.Configuration
    /// The longest one store operation may take, connection wait included.
    public var operationTimeout: Duration
    /// A URL safe to log (password removed).
    public var redactedURL: String
    /// The pooler in front of PostgreSQL, if any (``PostgresPooler``); check it with ``checkPooler()``.
    public var pooler: PostgresPooler = .none

    /// Parses a PostgreSQL URL. `sslmode` is `disable`, `prefer` (default) or `require`/`verify-full`;
    /// `search_path` (an AttestGuard extension) selects the schema, e.g. to share one database between tests.
    /// - Parameters:
    ///   - minimumConnections: Connections opened at start and never closed for idleness (clamped to the maximum).
    ///   - keepAlive: How long a connection may sit idle before a keep-alive query; `nil` sends none.
    public init(
        url: String,
        maximumConnections: Int = 20,
        minimumConnections: Int = 0,
        keepAlive: Duration? = .seconds(30),
        operationTimeout: Duration = .seconds(5)
    ) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql", let host = components.host, !host.isEmpty
        else {
            throw StoreError(.invalidConfiguration, "database URL must look like postgres://user:password@host:port/database")
        }
        guard let username = components.user, !username.isEmpty else {
            throw StoreError(.invalidConfiguration, "database URL has no user name")
        }
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw StoreError(.invalidConfiguration, "unknown sslmode \(sslMode)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var client = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: username,
            password: components.password?.removingPercentEncoding,
            database: database.isEmpty ? nil : database,
            tls: tls
        )
        client.options.maximumConnections = max(1, maximumConnections)
        client.options.minimumConnections = min(max(0, minimumConnections), client.options.maximumConnections)
        client.options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        if let searchPath = components.queryItems?.first(where: { $0.name == "search_path" })?.value, !searchPath.isEmpty {
            client.options.additionalStartupParameters = [("search_path", searchPath)]
        }
        client.options.connectTimeout = min(operationTimeout, .seconds(10))
        self.client = client
        self.operationTimeout = operationTimeout
        var redacted = components
        if redacted.password != nil { redacted.password = "***" }
        self.redactedURL = redacted.string ?? "postgres://\(host)"
    }
}
