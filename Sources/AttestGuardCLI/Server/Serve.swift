import ArgumentParser
import AttestGuardEngine
import AttestGuardServer
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `attestguard serve`: runs the HTTP API until SIGTERM or SIGINT, then drains and stops.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP API (no --config: simulator mode on SQLite with a sample app)."
    )

    @OptionGroup var options: ConfigurationOption

    func run() async throws {
        let configuration = try await options.load()
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = configuration.logLevel
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        let logger = Logger(label: "attestguard")

        for line in configuration.summary { logger.info("configuration", metadata: ["value": .string(line)]) }
        let modeGauge = Gauge(label: "attestguard_mode", dimensions: [("mode", configuration.mode.rawValue)])
        modeGauge.record(1)
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

        let clock = SystemClock()
        let rules = try RuleSetStartup.load(configuration, clock: clock, logger: logger)
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
            let scheduler = ReceiptRefreshScheduler(
                store: store.store,
                redeemer: apple.receipts,
                verifier: configuration.engine.receiptVerifier,
                settings: configuration.engine.receiptRefresh,
                clock: clock,
                logger: logger
            )
            background.append(ReceiptRefreshService(scheduler: scheduler))
            logger.info("receipt refresh: continuous", metadata: ["owner": .string(scheduler.owner)])
        } else {
            logger.notice("receipt refresh: off (needs apple.teamId, apple.keyId, apple.privateKeyFile and receipts.refresh.enabled)")
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host
        let application = try ServerAssembly.application(
            engine: engine,
            configuration: configuration,
            store: store,
            registry: registry,
            logger: logger,
            backgroundServices: background,
            rules: rules,
            onListening: { port in
                FileHandle.standardOutput.write(Data("attestguard listening on \(scheme)://\(host):\(port)\n".utf8))
            }
        )
        var groupConfiguration = ServiceGroupConfiguration(
            services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        )
        // Connections close by `shutdownTimeout` and the last flush stops at its budget; past both (and a margin for
        // the store to close), shutdown turns into cancellation rather than wait on anything else.
        let connections = configuration.connections
        groupConfiguration.maximumGracefulShutdownDuration = connections.shutdownTimeout + connections.shutdownFlushTimeout + .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch {
            await store.close()
            logger.critical("server stopped", metadata: ["error": .string(String(describing: error))])
            throw ExitCode(1)
        }
        await store.close()
    }
}
