import ArgumentParser
import AsyncHTTPClient
import AttestGuardRuntime
import Foundation
import TrafficSimulator

/// `attestguard simulate traffic`: the demo's personas against a server that is already running in simulator mode
/// (another terminal, or a PostgreSQL deployment under test), with the fake Apple's control route for the farm.
struct SimulateTraffic: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "traffic",
        abstract: "Play the demo's personas against a running simulator-mode server and report what each got.",
        discussion: """
            The server must run in simulator mode with the same --seed (simulator.seed), accept development keys \
            for --app-id, and redeem receipts with the fake Apple at --fake-apple (the farm persona sets its keys' \
            risk metric there). The unattested personas need the app's attestationRequiredPercent, given here as \
            --attestation-required-percent, between 1 and 99.

            Exit status: 0 when every persona got its expected outcome, 1 otherwise, 2 for a usage error or a \
            server that is not in simulator mode.
            """
    )

    @Option(help: "The server's base URL.") var server: String
    @Option(help: "The server's operator listener (operator.port), where its /readyz is when it has one.")
    var operatorListener: String?
    @Option(help: "The API key (it needs the verify, score and devicecheck:write scopes).")
    var apiKey = ServerConfigurationLoader.simulatorAPIKey
    @Option(help: "A file holding the API key instead of --api-key.") var apiKeyFile: String?
    @Option(help: "The fake Apple's base URL (its /fake/risk-metric route).") var fakeApple = "http://127.0.0.1:8090"
    @Option(help: "The app the personas use.") var appId = ServerConfigurationLoader.sampleAppId
    @Option(help: "The server's simulator.seed.") var seed = "attestguard-simulator"
    @Option(help: "The personas to play, comma-separated (default: all): \(Persona.allCases.map(\.rawValue).joined(separator: ", ")).")
    var personas: String?
    @Option(help: "Honest assertions per second, all honest users together (each sends one every \(TrafficSettings.defaultHonestInterval)), at most 10.")
    var rate = 0.5
    @Option(help: "Seconds of honest traffic (it also lasts until the scripted personas are done).") var duration = 20
    @Option(help: "The app's attestationRequiredPercent on the server (1-99 for the unattested personas).") var attestationRequiredPercent = 50
    @Option(help: "Seconds the farm waits for the server to redeem its receipts.") var receiptTimeout = 120
    @Flag(help: "Print the final table as JSON (a list of persona rows) instead of text.") var json = false

    func validate() throws {
        guard URL(string: server)?.host != nil else { throw ValidationError("--server must be a URL such as http://127.0.0.1:8080") }
        if let operatorListener, URL(string: operatorListener)?.host == nil {
            throw ValidationError("--operator-listener must be a URL such as http://127.0.0.1:9090")
        }
        let personas = try selectedPersonas()
        guard rate > 0, rate <= 10 else { throw ValidationError("--rate must be above 0 and at most 10") }
        guard (1...3_600).contains(duration) else { throw ValidationError("--duration must be 1...3600 seconds") }
        if personas.contains(.unattestedInsideRollout) || personas.contains(.unattestedOutsideRollout) {
            guard (1...99).contains(attestationRequiredPercent) else {
                throw ValidationError("the unattested personas need users inside and outside the rollout: --attestation-required-percent 1...99, as the app's attestationRequiredPercent")
            }
        }
        guard (1...3_600).contains(receiptTimeout) else { throw ValidationError("--receipt-timeout must be 1...3600 seconds") }
    }

    func run() async throws {
        let key = try apiKeyFile.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("cannot read --api-key-file \(path)") }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? apiKey
        let client = HTTPClient.forSimulatedTraffic()
        do {
            let report = try await play(client: client, apiKey: key)
            try await client.shutdown()
            FileHandle.standardOutput.write(json ? try report.json() + Data("\n".utf8) : Data(report.text.utf8))
            if !report.allMatched { throw ExitCode(1) }
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func play(client: HTTPClient, apiKey: String) async throws -> TrafficReport {
        let tally = TrafficTally()
        let api = AttestGuardAPI(baseURL: server, apiKey: apiKey, client: client, tally: tally)
        let readinessBase = operatorListener ?? server
        let readiness: APIAnswer
        do {
            readiness = try await AttestGuardAPI(baseURL: readinessBase, apiKey: apiKey, client: client, tally: TrafficTally()).get("/readyz")
        } catch {
            throw Self.refusal("cannot reach \(readinessBase)/readyz: \(error)")
        }
        guard readiness.json["mode"] as? String == ServerConfiguration.Mode.simulator.rawValue else {
            let answer = String(decoding: readiness.body.prefix(200), as: UTF8.self)
            let hint = operatorListener == nil && readiness.status == 404 ? " (a server with an operator listener answers /readyz there: --operator-listener)" : ""
            throw Self.refusal("\(readinessBase) is not an AttestGuard server in simulator mode (/readyz answered \(readiness.status) \(answer))\(hint); simulated devices are refused anywhere else")
        }
        let interval = TrafficSettings.defaultHonestInterval
        let honestUsers = max(1, Int((rate * Double(interval.components.seconds)).rounded(.up)))
        let run = try TrafficRun(
            settings: TrafficSettings(
                appId: appId,
                simulatorSeed: seed,
                runTag: "traffic-" + String(UInt32.random(in: 0...UInt32.max), radix: 36),
                personas: try selectedPersonas(),
                duration: .seconds(duration),
                honestUsers: honestUsers,
                attestationRequiredPercent: attestationRequiredPercent,
                receiptTimeout: .seconds(receiptTimeout)
            ),
            api: api,
            fakeApple: FakeAppleControl(baseURL: fakeApple, client: client),
            tally: tally
        )
        let results = await run.runShowingProgress()
        return TrafficReport(results, tally: await tally.current)
    }

    /// Says why the run cannot start, on standard error, and exits 2.
    private static func refusal(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("attestguard simulate traffic: \(message)\n".utf8))
        return ExitCode(2)
    }

    private func selectedPersonas() throws -> [Persona] {
        guard let personas else { return Persona.allCases }
        let names = personas.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let selected = try names.map { name in
            guard let persona = Persona(rawValue: name) else {
                throw ValidationError("--personas: \(name) is not a persona (\(Persona.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return persona
        }
        guard !selected.isEmpty else { throw ValidationError("--personas names no persona") }
        return Persona.allCases.filter(selected.contains)
    }
}
