public import Foundation
import AttestCore
public import DeviceSimulator
public import AttestVocabulary

/// Everything a ``FakeAppleServer`` needs: where to listen, which environment it plays, whose provider tokens it
/// accepts, which PKI signs its receipts, the scenario, the faults, and its clock and sleep.
public struct FakeAppleConfiguration: Sendable {
    /// The address to bind, `127.0.0.1` by default.
    public var host: String
    /// The port; 0 (the default) lets the system choose, reported through `onListening`.
    public var port: Int
    /// The one environment this instance serves (Apple runs one host per environment): receipts whose field 7
    /// names the other one are answered 400 "incorrect environment".
    public var environment: AppAttestEnvironment
    /// The Team ID a provider token's `iss` must equal.
    public var teamId: String
    /// When set, a provider token's `kid` must equal it.
    public var keyId: String?
    /// The provider key's public half in PEM (``AppleServices/AppleProviderCredentials/publicKeyPEM``).
    public var providerPublicKeyPEM: String
    /// The PKI whose receipt signer signs refreshed receipts (the devices' PKI).
    public var pki: SimulatedApplePKI
    /// Risk metrics, no-data and tampered tokens.
    public var scenario: FakeAppleScenario
    /// Injected failures.
    public var faults: FakeAppleFaults
    /// The oldest provider token accepted (Apple: one hour).
    public var maximumTokenAge: Duration
    /// The fake's clock: token age, receipt times, `last_update_time`.
    public var now: @Sendable () -> Date
    /// How slow answers wait.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        environment: AppAttestEnvironment = .production,
        teamId: String,
        keyId: String? = nil,
        providerPublicKeyPEM: String,
        pki: SimulatedApplePKI,
        scenario: FakeAppleScenario = FakeAppleScenario(),
        faults: FakeAppleFaults = .none,
        maximumTokenAge: Duration = .seconds(3600),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.host = host
        self.port = port
        self.environment = environment
        self.teamId = teamId
        self.keyId = keyId
        self.providerPublicKeyPEM = providerPublicKeyPEM
        self.pki = pki
        self.scenario = scenario
        self.faults = faults
        self.maximumTokenAge = maximumTokenAge
        self.now = now
        self.sleep = sleep
    }
}
