import AttestVocabulary
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardServer
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// A server assembled from its configuration, ready to run in a service group: the store, the engine, receipt
/// refresh when Apple is configured, and the HTTP application. `serve` and `demo` both run one. Making it logs the
/// version, the configuration summary and the mode's warnings, and sets the `attestguard_mode` metric.
struct ServerRuntime {
    /// The HTTP application with the store's and the engine's services and the receipt refresh.
    let application: any Service
    let store: OpenedStore
    let engine: Engine

    /// Opens the store, loads the rules and assembles the application; the metrics system must be bootstrapped.
    /// - Parameters:
    ///   - rulesFallback: The rule directory used when none is configured and it exists.
    ///   - onListening: Called with the port once the listener is bound.
    ///   - onOperatorListening: Called with the operator listener's port once it is bound, when there is one.
    static func make(
        _ configuration: ServerConfiguration,
        registry: PrometheusCollectorRegistry,
        logger: Logger,
        rulesFallback: String? = "Rules",
        onOperatorListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onListening: @escaping @Sendable (Int) async -> Void
    ) async throws -> ServerRuntime {
        announce(configuration, logger: logger)
        let clock = SystemClock()
        let rules = try RuleSetStartup.load(configuration, clock: clock, logger: logger, fallbackDirectory: rulesFallback)
        // Read at start, with or without a refresh to run it: a sweep rule set that does not load stops the start.
        let sweepRules = try RuleSetStartup.loadSweep(configuration, logger: logger)
        let store = try await OpenedStore.open(configuration.database, clock: { clock.now() }, logger: logger)
        let apple = AppleClients(configuration.apple, clock: clock)
        let engine = Engine(
            store: store.store,
            apps: AppCatalog(configuration.apps),
            settings: configuration.engine,
            clock: clock,
            deviceCheck: apple?.deviceCheck,
            rules: rules.holder,
            shadowRules: rules.shadow?.holder
        )
        var background: [any Service] = []
        if let apple, configuration.receiptRefreshEnabled {
            var scheduler = ReceiptRefreshScheduler(
                store: store, apple: apple, configuration: configuration, clock: clock, logger: logger, factsCache: engine.factsCache
            )
            if let sweepRules {
                scheduler.sweep = KeySweepJob(engine: engine, ruleSet: sweepRules)
                logger.info("key sweep: once a UTC day for the processes sharing the store, after the day's first refresh pass", metadata: ["rule_set": .string(sweepRules.version)])
            }
            background.append(ReceiptRefreshService(scheduler: scheduler))
            logger.info("receipt refresh: continuous", metadata: ["owner": .string(scheduler.owner)])
        } else {
            logger.notice("receipt refresh: off (needs apple.teamId, apple.keyId, apple.privateKeyFile and receipts.refresh.enabled)")
        }
        do {
            let application = try ServerAssembly.application(
                engine: engine,
                configuration: configuration,
                store: store,
                registry: registry,
                logger: logger,
                backgroundServices: background,
                rules: rules,
                onListening: onListening,
                onOperatorListening: onOperatorListening
            )
            return ServerRuntime(
                application: ListenerService(application, setting: "server.port", host: configuration.host, port: configuration.port),
                store: store, engine: engine
            )
        } catch {
            await store.close()
            throw error
        }
    }

    private static func announce(_ configuration: ServerConfiguration, logger: Logger) {
        var version: Logger.Metadata = ["version": .string(AttestGuardVersion.version)]
        if let commit = AttestGuardVersion.commit { version["commit"] = .string(commit) }
        logger.info("attestguard starting", metadata: version)
        for line in configuration.summary { logger.info("configuration", metadata: ["value": .string(line)]) }
        for warning in configuration.warnings {
            var metadata: Logger.Metadata = ["code": .string(warning.code.description), "key": .string(warning.key), "problem": .string(warning.problem)]
            if let suggestion = warning.suggestion { metadata["suggestion"] = .string(suggestion) }
            logger.warning("configuration warning", metadata: metadata)
        }
        for app in configuration.apps where app.debugTokens?.acceptedInProduction == true {
            logger.warning(
                "debug tokens pass the require routes of an app that accepts production keys (apps.<app>.debugTokens.allowInProduction)",
                metadata: ["app": .string(app.appId)]
            )
        }
        Gauge(label: MetricFamily.mode.name, dimensions: [("mode", configuration.mode.rawValue)]).record(1)
        if configuration.mode == .simulator {
            logger.warning(
                "SIMULATOR MODE: trusting the simulator's test PKI, refusing production keys; never use this for real traffic"
            )
            if configuration.apiKeys.map(\.name) == ["simulator"] {
                logger.warning("simulator API key: \(ServerConfigurationLoader.simulatorAPIKey)")
            }
        }
        if case .sqlite(let path) = configuration.database {
            logger.warning("embedded SQLite store at \(path): one process only; configure database.url for PostgreSQL")
        }
    }

    /// How long a graceful shutdown may take before it turns into cancellation: connections close by
    /// `shutdownTimeout` and the last flush stops at its budget, plus a margin for the store to close.
    static func maximumShutdownDuration(_ configuration: ServerConfiguration) -> Duration {
        configuration.connections.shutdownTimeout + configuration.connections.shutdownFlushTimeout + .seconds(5)
    }
}
