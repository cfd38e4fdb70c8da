import ArgumentParser
import AsyncHTTPClient
import AttestGuardServer
import Crypto
import DeviceSimulator
import FakeApple
import Foundation
import Logging
import Metrics
import Prometheus
import RiskRules
import ServiceLifecycle
import TrafficSimulator

/// `attestguard demo`: AttestGuard at work in one command. Starts a simulator-mode server on an SQLite file with the
/// default rule set, and a fake Apple, in this process; plays every persona (honest users, a device farm, a
/// promotion abuser, a replayer, a tamperer, unattested clients, a burst) over real HTTP; shows progress; ends with
/// the table of what each persona got against what it should, and exits 1 if any got something else.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a server and a fake Apple, play every persona against them, and show what each one got.",
        discussion: """
            Nothing to configure and nothing else to start: the server listens on 127.0.0.1 (a free port, printed) in
            simulator mode, on an SQLite file in --folder (a temporary folder by default), with the default rule set
            (or --rules). Progress goes to standard error; the final table (or --json) to standard output.
            Exit status: 0 when every persona got its expected outcome, 1 otherwise.
            """
    )

    @Option(help: "A folder for the SQLite file and the rule set (default: a temporary folder, removed at the end).")
    var folder: String?
    @Option(help: "A rule set directory to use instead of the embedded default set.")
    var rules: String?
    @Option(help: "Seconds of honest traffic (it also lasts until the scripted personas are done).")
    var duration = 20
    @Option(help: "The simulator PKI seed the devices attest under.")
    var seed = "attestguard-demo"
    @Option(help: "The server's port (0: a free one).")
    var port = 0
    @Option(help: "The server's log level on standard error: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "error"
    @Flag(help: "Print the final table as JSON (a list of persona rows) instead of text.")
    var json = false
    @Flag(help: "Keep the server running on loopback after the table, with curl commands to try, until Ctrl-C.")
    var keepServing = false

    func validate() throws {
        guard (1...3_600).contains(duration) else { throw ValidationError("--duration must be 1...3600 seconds") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level \(logLevel) is not a log level") }
        if let rules, !FileManager.default.fileExists(atPath: rules) { throw ValidationError("--rules \(rules) does not exist") }
    }

    func run() async throws {
        let workspace = try DemoWorkspace(folder: folder, rules: rules)
        defer { workspace.removeIfTemporary() }
        let level = Logger.Level(rawValue: logLevel) ?? .error
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        let logger = Logger(label: "attestguard.demo")

        let providerKey = P256.Signing.PrivateKey()
        let fakeApplePort = PortAnnouncement()
        let fakeApple = try FakeAppleServer(
            configuration: FakeAppleConfiguration(
                environment: .development,
                teamId: DemoEnvironment.teamId,
                providerPublicKeyPEM: providerKey.publicKey.pemRepresentation,
                pki: try SimulatedApplePKI(seed: seed)
            ),
            logger: Logger(label: "attestguard.demo.fake-apple"),
            onListening: { fakeApplePort.announce($0) }
        )
        let serverPort = PortAnnouncement()
        let apiKey = "demo-" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let group = ServiceGroup(
            configuration: .init(services: [FakeAppleService(server: fakeApple)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { fakeApplePort.finish() }
                try await group.run()
            }
            let fakeAppleURL = "http://127.0.0.1:\(try await fakeApplePort.port())"
            let environment = DemoEnvironment(
                seed: seed, port: port, sqlitePath: workspace.sqlitePath, rulesDirectory: workspace.rulesDirectory,
                fakeAppleURL: fakeAppleURL, apiKey: apiKey, providerPrivateKeyPEM: providerKey.pemRepresentation, logLevel: logLevel
            )
            let configuration = try await ServerConfigurationLoader.load(
                file: nil, environment: environment.variables, simulatorRoots: SimulatorTrustRoots.deviceSimulator
            )
            let runtime = try await ServerRuntime.make(configuration, registry: registry, logger: logger, rulesFallback: nil) {
                serverPort.announce($0)
            }
            let server = ServiceGroup(configuration: .init(services: [runtime.application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            tasks.addTask {
                defer { serverPort.finish() }
                do {
                    try await server.run()
                } catch {
                    await runtime.store.close()
                    throw error
                }
                await runtime.store.close()
                await group.triggerGracefulShutdown()
            }
            let serverURL = "http://127.0.0.1:\(try await serverPort.port())"
            let banner = DemoBanner(serverURL: serverURL, fakeAppleURL: fakeAppleURL, workspace: workspace, apiKey: apiKey)
            FileHandle.standardError.write(Data(banner.start.utf8))

            let (report, farmKey) = try await play(serverURL: serverURL, fakeAppleURL: fakeAppleURL, apiKey: apiKey)
            FileHandle.standardOutput.write(json ? try report.json() + Data("\n".utf8) : Data(report.text.utf8))
            if keepServing {
                FileHandle.standardError.write(Data(banner.keepServing(farmKey: farmKey).utf8))
                try await tasks.next()
            } else {
                await server.triggerGracefulShutdown()
            }
            try await tasks.waitForAll()
            if !report.allMatched { throw ExitCode(1) }
        }
    }

    /// Plays every persona against the server, with progress on standard error.
    /// - Returns: The report, and one of the farm's keys for the curl examples.
    private func play(serverURL: String, fakeAppleURL: String, apiKey: String) async throws -> (TrafficReport, String?) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let tally = TrafficTally()
        do {
            let run = try TrafficRun(
                settings: TrafficSettings(
                    appId: ServerConfigurationLoader.sampleAppId,
                    simulatorSeed: seed,
                    runTag: "demo-" + String(UInt32.random(in: 0...UInt32.max), radix: 36),
                    duration: .seconds(duration),
                    attestationRequiredPercent: DemoEnvironment.attestationRequiredPercent,
                    receiptTimeout: .seconds(60)
                ),
                api: AttestGuardAPI(baseURL: serverURL, apiKey: apiKey, client: client, tally: tally),
                fakeApple: FakeAppleControl(baseURL: fakeAppleURL, client: client),
                tally: tally
            )
            let results = await run.runShowingProgress()
            let farmKey = await tally.keys(of: .farm).first
            try await client.shutdown()
            return (TrafficReport(results), farmKey)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
