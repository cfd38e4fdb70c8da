import Foundation
public import PostgresNIO
import AttestGuardStore

/// How to reach PostgreSQL: a `postgres://user:password@host:port/database?sslmode=...` URL (several hosts allowed,
/// ``PostgresURL``), the pool size and how long a query may wait for a connection and an answer before the store
/// reports itself unavailable.
///
/// A busy process wants `minimumConnections` equal to `maximumConnections` and no keep-alive: PostgresNIO's pool
/// arms an idle-timeout timer (above the minimum) and a keep-alive timer each time a connection goes back to the
/// pool, as `Task.sleep`s that the next lease cancels, and a cancelled sleep keeps its memory until its original
/// deadline (swiftlang/swift#60441). With the defaults (60 s, 30 s), a busy pool keeps every sleep of the last
/// minute alive, so its memory grows with the query rate.
public struct PostgresStoreConfiguration: Sendable {
    /// The pool configuration for the URL's first host; ``clientConfiguration(for:)`` gives any other host's.
    public var client: PostgresClient.Configuration
    /// The URL's hosts, in the order they are tried.
    public var hosts: [PostgresURL.Host]
    /// Which host serves (`target_session_attrs`).
    public var targetSession: PostgresTargetSession
    /// The longest one store operation may take, connection wait included.
    public var operationTimeout: Duration
    /// A URL safe to log (password removed).
    public var redactedURL: String
    /// The pooler in front of PostgreSQL, if any (``PostgresPooler``); check it with ``checkPooler()``.
    public var pooler: PostgresPooler = .none
    /// Statement batching (``GroupCommit``) of accepted assertions and of verdicts' reads: the most one statement
    /// carries (1: each in its own statement, no batching).
    public var batchSize = defaultBatchSize
    /// Statement batching: the most batches of each kind in flight at once. A batch forms only while this many run,
    /// so a quiet process sends each at once.
    public var batchesInFlight = defaultBatchesInFlight

    /// ``batchSize`` unless configured (`database.batchSize`).
    public static let defaultBatchSize = 32
    /// ``batchesInFlight`` unless configured (`database.batchesInFlight`): 2 measured best on 2 cores
    /// (Benchmarks/results/2026-11-29-statement-batching.md).
    public static let defaultBatchesInFlight = 2
    /// Whether TLS is refused, tried or required (`sslmode`), for the connections that probe a host.
    private var tlsMode: TLSMode

    private enum TLSMode: Sendable {
        case disable, prefer, require
    }

    /// Parses a PostgreSQL URL. `sslmode` is `disable`, `prefer` (default) or `require`/`verify-full`;
    /// `search_path` (an AttestGuard extension) selects the schema, e.g. to share one database between tests;
    /// `target_session_attrs` picks the host among several (``PostgresTargetSession``).
    /// - Parameters:
    ///   - minimumConnections: Connections opened at start and never closed for idleness (clamped to the maximum).
    ///   - keepAlive: How long a connection may sit idle before a keep-alive query; `nil` sends none.
    ///   - defaultTarget: The host choice when the URL names none.
    ///   - allowedTargets: The host choices the URL may name (the primary's URL only takes `read-write`).
    public init(
        url: String,
        maximumConnections: Int = 20,
        minimumConnections: Int = 0,
        keepAlive: Duration? = .seconds(30),
        operationTimeout: Duration = .seconds(5),
        defaultTarget: PostgresTargetSession = .readWrite,
        allowedTargets: [PostgresTargetSession] = [.readWrite]
    ) throws {
        let parsed = try PostgresURL(parsing: url)
        let sslMode = parsed.parameter("sslmode") ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": (tls, tlsMode) = (.disable, .disable)
        case "prefer", "allow": (tls, tlsMode) = (.prefer(.makeClientConfiguration()), .prefer)
        case "require", "verify-ca", "verify-full": (tls, tlsMode) = (.require(.makeClientConfiguration()), .require)
        default: throw StoreError(.invalidConfiguration, "unknown sslmode \(sslMode)")
        }
        let targetName = parsed.parameter(PostgresTargetSession.parameter)
        guard let target = targetName.map(PostgresTargetSession.init(rawValue:)) ?? defaultTarget,
            allowedTargets.contains(target)
        else {
            let allowed = allowedTargets.map(\.rawValue).joined(separator: ", ")
            throw StoreError(.invalidConfiguration, "\(PostgresTargetSession.parameter) must be one of \(allowed), not \(targetName ?? "")")
        }
        var client = PostgresClient.Configuration(
            host: parsed.hosts[0].name,
            port: parsed.hosts[0].port,
            username: parsed.user,
            password: parsed.password,
            database: parsed.database,
            tls: tls
        )
        client.options.maximumConnections = max(1, maximumConnections)
        client.options.minimumConnections = min(max(0, minimumConnections), client.options.maximumConnections)
        client.options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        if let searchPath = parsed.parameter(Self.searchPathParameter), !searchPath.isEmpty {
            client.options.additionalStartupParameters = [(Self.searchPathParameter, searchPath)]
        }
        client.options.connectTimeout = min(operationTimeout, .seconds(10))
        self.client = client
        self.hosts = parsed.hosts
        self.targetSession = target
        self.operationTimeout = operationTimeout
        self.redactedURL = parsed.redacted
    }

    /// The pool configuration for `host`: the first host's, pointed at `host`.
    public func clientConfiguration(for host: PostgresURL.Host) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host.name,
            port: host.port,
            username: client.username,
            password: client.password,
            database: client.database,
            tls: client.tls
        )
        configuration.options = client.options
        return configuration
    }

    /// The configuration of a single connection that asks `host` whether it serves.
    func probeConfiguration(for host: PostgresURL.Host) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch tlsMode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host.name,
            port: host.port,
            username: client.username,
            password: client.password,
            database: client.database,
            tls: tls
        )
        configuration.options.connectTimeout = .nanoseconds(Int64(client.options.connectTimeout.components.seconds) * 1_000_000_000)
        return configuration
    }
}
