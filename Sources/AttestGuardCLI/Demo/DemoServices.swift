import AttestGuardRuntime
import AttestGuardStore
import Crypto
import DeviceSimulator
import FakeApple
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// The demo's fake Apple in a service group of its own: it must listen before the server is configured, because the
/// server's Apple hosts name its port.
struct DemoFakeApple: Sendable {
    let port = PortAnnouncement()
    private let group: ServiceGroup

    init(seed: String, providerKey: P256.Signing.PrivateKey) throws {
        let port = self.port
        let server = try FakeAppleServer(
            configuration: FakeAppleConfiguration(
                environment: .development,
                teamId: DemoEnvironment.teamId,
                providerPublicKeyPEM: providerKey.publicKey.pemRepresentation,
                pki: try SimulatedApplePKI(seed: seed)
            ),
            logger: Logger(label: "attestguard.demo.fake-apple"),
            onListening: { port.announce($0) }
        )
        var configuration = ServiceGroupConfiguration(
            services: [FakeAppleService(server: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "attestguard.demo")
        )
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        group = ServiceGroup(configuration: configuration)
    }

    /// Runs until SIGTERM, SIGINT or ``stop()``.
    func run() async throws {
        defer { port.finish() }
        try await group.run()
    }

    func stop() async {
        await group.triggerGracefulShutdown()
    }
}

/// The demo's server in a service group of its own, with the shutdown `serve` has: SIGTERM or SIGINT, connections
/// closed within their timeout, the last flush within its budget, the store closed at the end.
struct DemoServer: Sendable {
    let port = PortAnnouncement()
    private let runtime: ServerRuntime
    private let group: ServiceGroup
    private let logger: Logger

    /// Assembles the server (``ServerRuntime``) without a rules fallback: the demo's configuration names its rules.
    init(_ configuration: ServerConfiguration, registry: PrometheusCollectorRegistry, logger: Logger) async throws {
        let port = self.port
        runtime = try await ServerRuntime.make(configuration, registry: registry, logger: logger, rulesFallback: nil) { port.announce($0) }
        var groupConfiguration = ServiceGroupConfiguration(
            services: [runtime.application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = ServerRuntime.maximumShutdownDuration(configuration)
        group = ServiceGroup(configuration: groupConfiguration)
        self.logger = logger
    }

    /// Runs until SIGTERM, SIGINT or ``stop()``; then, however it ended, closes the store and runs `then` (which
    /// stops the fake Apple, so that nothing waits on it).
    func run(then: @Sendable () async -> Void) async throws {
        defer { port.finish() }
        let outcome: Result<Void, any Error>
        do {
            try await group.run()
            outcome = .success(())
        } catch {
            logger.critical("server stopped", metadata: ["error": .string(String(describing: error))])
            outcome = .failure(error)
        }
        await runtime.store.close()
        await then()
        try outcome.get()
    }

    func stop() async {
        await group.triggerGracefulShutdown()
    }

    /// The server's store, for the demo's reads of its decision log and labels.
    var store: any RiskStore { runtime.store.store }

    /// Writes every verdict decided so far to the decision log, without waiting for the write-behind service.
    func flushDecisionLog() async throws {
        try await runtime.engine.scorer.decisionLog.flush()
    }

    /// Opens the review items of every review verdict decided so far, without waiting for the write-behind service.
    func flushReviewOpenings() async throws {
        try await runtime.engine.reviews.recorder.flush(now: runtime.engine.clock.now())
    }
}
