import AppleServices
import DeviceSimulator
import FakeApple
import AttestCore
import AttestTestSupport
import Crypto
import Foundation
import Logging
import Synchronization
import AttestVocabulary

/// A settable clock for tests.
final class ManualClock: Sendable {
    private let instant: Mutex<Date>

    init(_ start: Date) { instant = Mutex(start) }

    var now: Date { instant.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        instant.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The closure the code under test reads.
    var closure: @Sendable () -> Date { { [self] in self.now } }
}

/// Builds provider credentials, a fake Apple, and clients pointed at it.
enum FakeAppleHarness {
    static let teamId = "ABCDE12345"
    static let keyId = "KEY1234567"
    static let pki = SimulatorFixtures.pki
    static let app = SimulatorFixtures.app
    /// The fake's and the clients' clock: a minute after the fixtures' attestations.
    static let now = SimulatorFixtures.now.addingTimeInterval(60)

    static var quietLogger: Logger {
        var logger = Logger(label: "fake-apple-tests")
        logger.logLevel = .critical
        return logger
    }

    static func credentials(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) throws -> AppleProviderCredentials {
        try AppleProviderCredentials(teamId: teamId, keyId: keyId, privateKeyPEM: key.pemRepresentation)
    }

    static func configuration(
        credentials: AppleProviderCredentials,
        environment: AppAttestEnvironment = .production,
        scenario: FakeAppleScenario = FakeAppleScenario(),
        faults: FakeAppleFaults = .none
    ) -> FakeAppleConfiguration {
        FakeAppleConfiguration(
            environment: environment,
            teamId: teamId,
            keyId: keyId,
            providerPublicKeyPEM: credentials.publicKeyPEM,
            pki: pki,
            scenario: scenario,
            faults: faults,
            now: { now }
        )
    }

    /// Runs a fake Apple for the duration of `body`, which gets the server (for its state) and its base URL.
    static func withFake<Value: Sendable>(
        _ configuration: FakeAppleConfiguration,
        _ body: (FakeAppleServer, String) async throws -> Value
    ) async throws -> Value {
        let server = try FakeAppleServer(configuration: configuration, logger: quietLogger)
        return try await server.withRunning { port in
            try await body(server, "http://127.0.0.1:\(port)")
        }
    }

    /// A client of the fake. The default deadline is long: the tests that end in a timeout give their own, and the
    /// others must not turn into one when the suite's busiest minute starves the fake on two cores (a dropped
    /// connection once came back as `timedOut` after 5 s; the first half minute can hold a thread back for 30 s).
    static func redemptionClient(
        _ credentials: AppleProviderCredentials,
        baseURL: String,
        timeout: Duration = .seconds(120)
    ) -> ReceiptRedemptionClient {
        ReceiptRedemptionClient(
            tokens: ProviderTokenSource(credentials: credentials, now: { now }),
            configuration: ReceiptRedemptionClient.Configuration(baseURL: baseURL, timeout: timeout)
        )
    }

    /// A DeviceCheck client of the fake, with a long default deadline for the same reason as ``redemptionClient``.
    static func deviceCheckClient(
        _ credentials: AppleProviderCredentials,
        baseURL: String,
        timeout: Duration = .seconds(120)
    ) -> DeviceCheckClient {
        DeviceCheckClient(
            tokens: ProviderTokenSource(credentials: credentials, now: { now }),
            configuration: DeviceCheckClient.Configuration(baseURL: baseURL, timeout: timeout),
            now: { now }
        )
    }

    /// A fresh ATTEST receipt for a device's first key.
    static func attestation(device identifier: String, environment: AppAttestEnvironment = .production) throws -> SimulatedAttestation {
        let device = SimulatedDevice(pki: pki, identifier: identifier, environment: environment)
        return try SimulatorFixtures.attestation(
            device: device,
            key: device.generateKey(0),
            challenge: SimulatorFixtures.challenge(identifier)
        )
    }
}
