import ArgumentParser
import AsyncHTTPClient
import AttestGuardRuntime
import Crypto
import Foundation
import Logging
import Metrics
import Prometheus
import TrafficSimulator
import UnixSignals

/// `attestguard demo`: AttestGuard at work in one command. Starts a simulator-mode server on an SQLite file with the
/// default rule set, and a fake Apple, in this process; plays every persona (honest users, a device farm, a
/// promotion abuser, a replayer, a tamperer, unattested clients, a burst) over real HTTP; shows progress; ends with
/// the table of what each persona got against what it should, then the labelled history (the fraud team's labels on
/// the checked requests, some posted and some given by approving review items in the console, and the rules'
/// precision and recall against them), and exits 1 if anything differs.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a server and a fake Apple, play every persona against them, and show what each one got.",
        discussion: """
            Nothing to configure and nothing else to start: the server listens on 127.0.0.1 (a free port, printed) \
            in simulator mode, on an SQLite file in --folder (a temporary folder by default), with the default rule \
            set (or --rules). Progress goes to standard error; the final table (or --json) to standard output.

            Exit status: 0 when every persona got its expected outcome, 1 otherwise, 2 for a usage error or a \
            server that cannot start, 130 when interrupted.
            """
    )

    @Option(help: "A folder for the SQLite file and the rule set (default: a temporary folder, removed at the end).")
    var folder: String?
    @Option(help: "A rule set directory to use instead of the embedded default set.")
    var rules: String?
    @Option(help: "Seconds of honest traffic at least (it also lasts until the scripted personas are done).")
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
        LoggingSystem.bootstrap { _ in LogLineHandler(format: .text, level: level) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        let logger = Logger(label: "attestguard.demo")
        let providerKey = P256.Signing.PrivateKey()
        // A key of this run alone, for a server on loopback that lives as long as the demo: shown with --keep-serving
        // so that the curl commands can be pasted as they are.
        let apiKey = "demo-" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let fakeApple = try DemoFakeApple(seed: seed, providerKey: providerKey)

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await fakeApple.run() }
            let fakeAppleURL = try await Self.address(fakeApple.port, tasks: &tasks)
            let environment = DemoEnvironment(
                seed: seed, port: port, sqlitePath: workspace.sqlitePath, rulesDirectory: workspace.rulesDirectory,
                fakeAppleURL: fakeAppleURL, apiKey: apiKey, providerPrivateKeyPEM: providerKey.pemRepresentation, logLevel: logLevel
            )
            let configuration = try await ServerConfigurationLoader.load(
                file: nil, environment: environment.variables, simulatorRoots: SimulatorTrustRoots.deviceSimulator
            )
            let server = try await DemoServer(configuration, registry: registry, logger: logger)
            tasks.addTask { try await server.run(then: fakeApple.stop) }
            let serverURL = try await Self.address(server.port, tasks: &tasks)
            let banner = DemoBanner(serverURL: serverURL, fakeAppleURL: fakeAppleURL, workspace: workspace, apiKey: apiKey)
            FileHandle.standardError.write(Data(banner.start.utf8))

            let started = Date()
            guard let played = try await playUntilInterrupted(serverURL: serverURL, fakeAppleURL: fakeAppleURL, apiKey: apiKey) else {
                FileHandle.standardError.write(Data("interrupted: no table\n".utf8))
                await server.stop()
                try await tasks.waitForAll()
                throw ExitCode(130)
            }
            let history: DemoLabelledHistory
            do {
                history = try await DemoLabelledHistory.measure(
                    results: played.results, serverURL: serverURL, apiKey: apiKey, server: server, rulesDirectory: workspace.rulesDirectory,
                    since: started.addingTimeInterval(-60)
                )
            } catch {
                // The personas' table stands on its own: it is printed, then the servers stop as after it, closing the
                // store, before the error ends the demo.
                FileHandle.standardOutput.write((try? Self.output(played.report, history: nil, json: json)) ?? Data())
                await server.stop()
                try? await tasks.waitForAll()
                throw error
            }
            FileHandle.standardOutput.write(try Self.output(played.report, history: history, json: json))
            if keepServing {
                FileHandle.standardError.write(Data(banner.keepServing(farmKey: played.farmKey, farmAddress: played.farmAddress).utf8))
            } else {
                if !json { FileHandle.standardError.write(Data(DemoBanner.nextSteps.utf8)) }
                await server.stop()
            }
            try await tasks.waitForAll()
            if !played.report.allMatched || !history.allMatched { throw ExitCode(1) }
        }
    }

    /// What the demo prints on standard output: the personas' table (JSON with `--json`), and in text the labelled
    /// history after it when it was measured.
    private static func output(_ report: TrafficReport, history: DemoLabelledHistory?, json: Bool) throws -> Data {
        if json { return try report.json() + Data("\n".utf8) }
        return Data((report.text + (history.map { "\n" + $0.text } ?? "")).utf8)
    }

    /// The listener's address once it listens. When it stopped first, the error it stopped with, once the other
    /// services have stopped too (a server that fails stops the fake Apple; cancelling it instead logs errors).
    private static func address(_ port: PortAnnouncement, tasks: inout ThrowingTaskGroup<Void, any Error>) async throws -> String {
        do {
            return "http://127.0.0.1:\(try await port.port())"
        } catch {
            var firstError: (any Error)?
            while true {
                do {
                    guard try await tasks.next() != nil else { break }
                } catch {
                    firstError = firstError ?? error
                }
            }
            throw firstError ?? error
        }
    }

    /// What the traffic run left: each persona's result and the report, one of the farm's keys and its address (for the
    /// curl examples).
    private struct Played {
        let results: [PersonaResult]
        let report: TrafficReport
        let farmKey: String?
        let farmAddress: String
    }

    /// Plays every persona against the server, with progress on standard error; `nil` when SIGINT or SIGTERM came
    /// first (the personas are cancelled; the servers stop on the same signal).
    private func playUntilInterrupted(serverURL: String, fakeAppleURL: String, apiKey: String) async throws -> Played? {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let client = HTTPClient.forSimulatedTraffic()
        let tally = TrafficTally()
        let settings = TrafficSettings(
            appId: ServerConfigurationLoader.sampleAppId,
            simulatorSeed: seed,
            runTag: "demo-" + String(UInt32.random(in: 0...UInt32.max), radix: 36),
            duration: .seconds(duration),
            attestationRequiredPercent: DemoEnvironment.attestationRequiredPercent
        )
        let run = try TrafficRun(
            settings: settings,
            api: AttestGuardAPI(baseURL: serverURL, apiKey: apiKey, client: client, tally: tally),
            fakeApple: FakeAppleControl(baseURL: fakeAppleURL, client: client),
            tally: tally
        )
        let results = await withTaskGroup(of: [PersonaResult]?.self) { group in
            group.addTask { await run.runShowingProgress() }
            group.addTask {
                for await _ in signals { return nil }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try? await client.shutdown()
        guard let results else { return nil }
        return Played(results: results, report: TrafficReport(results, tally: await tally.current), farmKey: await tally.keys(of: .farm).first, farmAddress: settings.farmAddress)
    }
}
