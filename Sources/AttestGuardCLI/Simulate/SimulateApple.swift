import AppleServices
import DeviceSimulator
import FakeApple
import ArgumentParser
import AttestCore
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import AttestVocabulary

/// `attestguard simulate apple`: the fake of Apple's receipt (`/v1/attestationData`) and DeviceCheck endpoints,
/// with risk-metric scenarios and injected faults, until SIGTERM or SIGINT.
struct SimulateApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Serve a fake of Apple's receipt redemption and DeviceCheck endpoints (GET /fake/stats for counters).",
        discussion: """
            Point a simulator-mode server at it with apple.hosts.receiptsDevelopment (or ...Production) and \
            apple.hosts.deviceCheckDevelopment. Its receipts are signed by the simulator PKI of --seed, which must \
            equal the server's simulator.seed, and it accepts provider tokens signed by --provider-key (the \
            server's .p8).
            """
    )

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0 picks a free one; the chosen port is printed).") var port = 8090
    @Option(help: "The App Attest environment this host serves: development or production.") var environment = AppAttestEnvironment.development.rawValue
    @Option(help: "The team id provider tokens must name (iss).") var teamId = "ABCDE12345"
    @Option(help: "A PEM file with the provider key: the .p8 private key, or its public half.") var providerKey: String
    @Option(help: "The simulator PKI seed (the server's simulator.seed).") var seed = "attestguard-simulator"
    @Option(help: "The risk metric of an honest device.") var riskMetric = 1
    @Option(help: "The share of receipt tokens (0...1) that belong to device farms.") var farmFraction = 0.0
    @Option(help: "The risk metric of a farm device.") var farmRiskMetric = 40
    @Option(help: "The share of requests answered 429.") var throttleRate = 0.0
    @Option(help: "The Retry-After of an injected 429, in seconds.") var retryAfter = 1
    @Option(help: "The share of requests answered 500 or 503.") var serverErrorRate = 0.0
    @Option(help: "The share of requests whose connection is dropped without an answer.") var dropRate = 0.0
    @Option(help: "The share of requests answered slowly.") var slowRate = 0.0
    @Option(help: "The delay of a slow answer, in milliseconds.") var slowMilliseconds = 2_000
    @Option(help: "The seed that decides which requests get a fault.") var faultSeed = "fake-apple-faults"

    func validate() throws {
        for (name, rate) in [("farm-fraction", farmFraction), ("throttle-rate", throttleRate), ("server-error-rate", serverErrorRate),
                             ("drop-rate", dropRate), ("slow-rate", slowRate)] where !(0...1).contains(rate) {
            throw ValidationError("--\(name) must be between 0 and 1")
        }
        guard AppAttestEnvironment(rawValue: environment) != nil else { throw ValidationError("--environment must be development or production") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard riskMetric >= 0, farmRiskMetric >= 0, retryAfter >= 0, slowMilliseconds >= 0 else {
            throw ValidationError("metrics, --retry-after and --slow-milliseconds must not be negative")
        }
    }

    func run() async throws {
        guard let text = try? String(contentsOfFile: providerKey, encoding: .utf8) else {
            throw ValidationError("cannot read --provider-key \(providerKey)")
        }
        let publicKeyPEM: String
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: text) {
            publicKeyPEM = privateKey.publicKey.pemRepresentation
        } else if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: text) {
            publicKeyPEM = publicKey.pemRepresentation
        } else {
            throw ValidationError("--provider-key \(providerKey) holds no PEM P-256 key")
        }
        let configuration = FakeAppleConfiguration(
            host: host,
            port: port,
            environment: AppAttestEnvironment(rawValue: environment) ?? .development,
            teamId: teamId,
            providerPublicKeyPEM: publicKeyPEM,
            pki: try SimulatedApplePKI(seed: seed),
            scenario: FakeAppleScenario(defaultRiskMetric: riskMetric, farmFraction: farmFraction, farmRiskMetric: farmRiskMetric),
            faults: FakeAppleFaults(
                seed: faultSeed,
                throttleRate: throttleRate,
                retryAfterSeconds: retryAfter,
                serverErrorRate: serverErrorRate,
                dropRate: dropRate,
                slowRate: slowRate,
                slowDelay: .milliseconds(slowMilliseconds)
            )
        )
        var logger = Logger(label: "attestguard.fake-apple")
        logger.logLevel = .warning
        let host = self.host
        let server = try FakeAppleServer(configuration: configuration, logger: logger) { port in
            FileHandle.standardOutput.write(Data("fake apple listening on http://\(host):\(port)\n".utf8))
        }
        let group = ServiceGroup(
            configuration: .init(services: [FakeAppleService(server: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
    }
}
