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

        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host
        let runtime = try await ServerRuntime.make(configuration, registry: registry, logger: logger) { port in
            FileHandle.standardOutput.write(Data("attestguard listening on \(scheme)://\(host):\(port)\n".utf8))
        }
        let store = runtime.store
        var groupConfiguration = ServiceGroupConfiguration(
            services: [runtime.application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = ServerRuntime.maximumShutdownDuration(configuration)
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
