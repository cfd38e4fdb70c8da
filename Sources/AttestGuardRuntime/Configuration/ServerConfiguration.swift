public import AttestGuardEngine
import Foundation
import AppleServices
import AttestGuardStore
public import AttestGuardPostgres
import AttestVocabulary
public import Logging

/// Everything `attestguard serve` needs, read from one YAML or JSON file plus `ATTESTGUARD_*` environment
/// overrides (see ``ServerConfigurationLoader``). Secrets arrive resolved from files or the environment and are
/// never printed by ``summary``.
public struct ServerConfiguration: Sendable {
    /// `production` trusts Apple's roots only; `simulator` trusts the simulator's test PKI and refuses
    /// production-environment keys.
    public enum Mode: String, Sendable, CaseIterable {
        case production
        case simulator
    }

    /// Where state lives.
    public enum Database: Sendable {
        case postgres(Postgres)
        case sqlite(path: String)

        /// The same database with no connection kept open while idle: for one-shot commands (migrate, backtest)
        /// that need a connection or two for a moment, not a warm pool.
        public var coldPool: Database {
            guard case .postgres(var postgres) = self else { return self }
            postgres.minimumConnections = 0
            return .postgres(postgres)
        }

        /// Where the state is, for a person: the SQLite file, or the PostgreSQL URL without its password.
        public var location: String {
            switch self {
            case .postgres(let postgres): (try? PostgresStoreConfiguration(url: postgres.url).redactedURL) ?? "postgres://?"
            case .sqlite(let path): path
            }
        }
    }

    /// A PostgreSQL database and its connection pool.
    public struct Postgres: Sendable {
        public var url: String
        /// The most connections the process opens.
        public var poolSize: Int
        /// Connections kept open even when idle; the pool size by default, so that no idle-timeout timers run.
        public var minimumConnections: Int
        /// Idle time before a keep-alive query; `nil` (the default) sends none.
        public var keepAlive: Duration?
        /// The longest one store operation may take.
        public var timeout: Duration
        /// The connection pooler in front of PostgreSQL, if any (`database.pooler`): see ``PostgresPooler``.
        public var pooler: PostgresPooler = .none
        /// The read replica for reads that may lag (`database.readUrl`): history, decision search, console
        /// aggregates, the backtest's log. `nil`: they read the primary.
        public var readURL: String?
        /// The replica's pool size (`database.readPoolSize`); it keeps no connection open while idle.
        public var readPoolSize = 4
        /// How far behind the replica may be before reads that use it are refused (`database.readMaxLagSeconds`).
        public var readMaximumLag: Duration = .seconds(30)
        /// The most accepted assertions, or verdicts' reads, one statement carries (`database.batchSize`; 1: no
        /// batching).
        public var batchSize = PostgresStoreConfiguration.defaultBatchSize
        /// The most of those statements of each kind in flight at once (`database.batchesInFlight`).
        public var batchesInFlight = PostgresStoreConfiguration.defaultBatchesInFlight
    }

    /// PEM files for HTTPS.
    public struct TLSFiles: Sendable, Hashable {
        public var certificateChainPath: String
        public var privateKeyPath: String
    }

    public var mode: Mode
    public var host: String
    public var port: Int
    public var tls: TLSFiles?
    /// The largest request body accepted (413 above it).
    public var maxBodyBytes: Int
    /// Timeouts and the connection limit of the HTTP server.
    public var connections = ConnectionSettings()
    public var database: Database
    /// Apply pending migrations at start-up (always on for SQLite; PostgreSQL defaults to requiring `migrate`).
    public var autoMigrate: Bool
    public var apps: [AppPolicy]
    public var apiKeys: [APIKey]
    public var engine: EngineSettings
    /// The simulator PKI's seed (simulator mode only).
    public var simulatorSeed: String
    /// Apple's receipt and DeviceCheck services.
    public var apple: AppleConfiguration
    /// Whether `serve` refreshes receipts continuously (`receipts.refresh.enabled`; needs Apple credentials).
    public var receiptRefreshEnabled: Bool
    public var logLevel: Logger.Level
    /// How log lines are written (`logFormat`).
    public var logFormat: LogFormat = .text
    /// How often the stored app policy overrides, and each app's latest risk-metric baseline, are read again
    /// (`apps.policyReloadSeconds`): a change made through any process is in force in every process within this period.
    public var appPolicyReloadInterval: Duration = .seconds(5)
    /// The share of successful answers (2xx, 3xx) that get an access log line, in percent (`accessLog.successPercent`).
    public var accessLogSuccessPercent = 100
    /// The rule directory (`rules.directory`); `nil`: `Rules` in the working directory if there is one, else no
    /// rules (every verdict allow).
    public var rulesDirectory: String? = nil
    /// A shadow rule directory (`rules.shadowDirectory`): evaluated beside the live set and logged, never enforced.
    public var shadowRulesDirectory: String? = nil
    /// The rule set the nightly sweep evaluates over every active key (`rules.sweepDirectory`); `nil`: no sweep.
    public var sweepRulesDirectory: String? = nil
    /// Rules with a hit series of their own (`rules.hitMetricsLimit`); the rest count as `rule="_other"`.
    public var ruleHitMetricsLimit = RuleHitCounters.defaultLimit
    /// The forward-auth endpoint's route policies and trusted header prefix (`gateway.*`).
    public var gateway = GatewaySettings()
    /// What loading found worth a warning (``ConfigurationCheck/warnings``): unknown `ATTESTGUARD_*` variables, and
    /// unknown keys when they were allowed. `serve` logs each at start-up.
    public var warnings: [ConfigurationError] = []
    /// A listener of its own for `/metrics`, `/readyz` and `/openapi.yaml` (`operator.port`, `operator.host`): with
    /// one, the API listener serves the API and `/healthz` only, so that it can face the gateway's network.
    public var operatorListener: OperatorListener? = nil
    /// The analysts' console: its session cookies' key and lifetime (`console.*`).
    public var console = ConsoleSettings()

    /// Where the operator routes listen (plain HTTP: bind it to a private interface).
    public struct OperatorListener: Sendable, Equatable {
        public var host: String
        public var port: Int
    }

    /// Lines safe to log at start-up: no secret, no password.
    public var summary: [String] {
        var lines = [
            "mode=\(mode.rawValue)",
            "listen=\(tls == nil ? "http" : "https")://\(host):\(port)",
            "operator=\(operatorListener.map { "http://\($0.host):\($0.port) (/metrics, /readyz, /openapi.yaml)" } ?? "on the API listener")",
            "apps=\(apps.map(\.appId).joined(separator: ","))",
            "console=\(operatorListener == nil ? "the API listener" : "the operator listener") /console/ (sessions \(console.sessionMinutes) min, \(console.sessionSecret == nil ? "a per-process key: not kept across restarts or processes" : "signed with console.sessionSecret"))",
            "apiKeys=\(apiKeys.map { "\($0.name)[\($0.scopes.map(\.rawValue).sorted().joined(separator: "+"))]" }.joined(separator: ","))",
        ]
        if let credentials = apple.credentials {
            // The hosts of the environments the apps accept: the ones the server calls.
            let environments = AppAttestEnvironment.allCases.filter { environment in apps.contains { $0.environments.contains(environment) } }
            func hosts(_ endpoint: AppleEndpoint) -> String {
                environments.map { "\($0.rawValue)=\(endpoint.baseURL(for: $0))" }.joined(separator: ",")
            }
            lines.append("apple=team \(credentials.teamId) key \(credentials.keyId) receipts \(hosts(apple.receipts)) devicecheck \(hosts(apple.deviceCheck))")
            lines.append("receiptRefresh=\(receiptRefreshEnabled ? "continuous" : "off")")
        } else {
            lines.append("apple=not configured (no receipt refresh, no DeviceCheck)")
        }
        switch database {
        case .postgres(let postgres):
            lines.append("store=postgresql \(database.location) pool=\(postgres.minimumConnections)...\(postgres.poolSize) pooler=\(postgres.pooler.rawValue)")
            if let readURL = postgres.readURL {
                let replica = (try? PostgresURL(parsing: readURL).redacted) ?? "postgres://?"
                lines.append("readReplica=\(replica) pool=0...\(postgres.readPoolSize) maxLag=\(postgres.readMaximumLag)")
            }
        case .sqlite:
            lines.append("store=sqlite \(database.location)")
        }
        return lines
    }
}
