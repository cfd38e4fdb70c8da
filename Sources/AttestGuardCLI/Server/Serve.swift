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
        let configuration = try await options.load(printingWarnings: false)
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = configuration.logLevel
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        let logger = Logger(label: "attestguard")

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
