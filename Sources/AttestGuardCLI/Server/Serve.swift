import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
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
        let configuration = try await options.load(printingWarnings: false)
        LoggingSystem.bootstrap { _ in LogLineHandler(format: configuration.logFormat, level: configuration.logLevel) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        let logger = Logger(label: "attestguard")

        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host
        let operatorHost = configuration.operatorListener?.host ?? host
        let runtime = try await ServerRuntime.make(configuration, registry: registry, logger: logger, onOperatorListening: { port in
            FileHandle.standardOutput.write(Data("attestguard operator listener at http://\(operatorHost):\(port)\n".utf8))
        }) { port in
            FileHandle.standardOutput.write(Data("attestguard listening on \(scheme)://\(host):\(port)\n".utf8))
        }
        let store = runtime.store
        var groupConfiguration = ServiceGroupConfiguration(
            // The announcement is last, so that it is the first told of a shutdown.
            services: [runtime.application, ShutdownAnnouncement(logger: logger)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
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
        logger.info("attestguard stopped")
    }
}
