public import AppleServices
public import AttestGuardEngine
public import AttestGuardStore
public import Crypto
public import FakeApple
import AppleReceipts
public import Foundation
public import Logging

/// A receipt scheduler wired to an in-process fake Apple over loopback, on one manual clock shared by the
/// scheduler, the provider tokens and the fake, so back-offs and Retry-After cost no wall time.
public struct RefreshHarness {
    public static let teamId = "ABCDE12345"
    public static let providerKey = P256.Signing.PrivateKey()
    public static let attestedAt = SimulatorFixtures.now
    /// When the batch runs: a minute after the fleet was attested.
    public static let batchAt = SimulatorFixtures.now.addingTimeInterval(60)

    public static var quietLogger: Logger {
        var logger = Logger(label: "attestguard.tests.receipts")
        logger.logLevel = .critical
        return logger
    }

    public static func credentials() throws -> AppleProviderCredentials {
        try AppleProviderCredentials(teamId: teamId, keyId: "KEY1234567", privateKeyPEM: providerKey.pemRepresentation)
    }

    public static func settings(maximumAttempts: Int = 6) -> ReceiptRefreshSettings {
        ReceiptRefreshSettings(
            concurrency: 16,
            leaseBatchSize: 32,
            maximumAttempts: maximumAttempts,
            retryBaseDelay: .seconds(1),
            retryMaximumDelay: .seconds(30),
            requestsPerSecond: [.development: 2_000, .production: 2_000],
            pollInterval: .seconds(1)
        )
    }

    /// Runs a fake Apple (development host) on `clock` and gives `body` the fake and a scheduler pointed at it (telling
    /// `factsCache` of what it settles, as `serve`'s continuous refresher tells the engine's).
    public static func withScheduler<Value: Sendable>(
        store: any RiskStore,
        clock: ManualClock,
        scenario: FakeAppleScenario = FakeAppleScenario(),
        faults: FakeAppleFaults = .none,
        settings: ReceiptRefreshSettings = settings(),
        factsCache: ScoringFactsCache? = nil,
        _ body: (FakeAppleServer, ReceiptRefreshScheduler) async throws -> Value
    ) async throws -> Value {
        let credentials = try credentials()
        let configuration = FakeAppleConfiguration(
            environment: .development,
            teamId: teamId,
            providerPublicKeyPEM: credentials.publicKeyPEM,
            pki: SimulatorFixtures.pki,
            scenario: scenario,
            faults: faults,
            now: { clock.now() },
            sleep: { try await clock.sleep(until: clock.now().addingTimeInterval($0.timeInterval)) }
        )
        let fake = try FakeAppleServer(configuration: configuration, logger: quietLogger)
        return try await fake.withRunning { port in
            let client = ReceiptRedemptionClient(
                tokens: ProviderTokenSource(credentials: credentials, now: { clock.now() }),
                configuration: .init(baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(120))
            )
            let scheduler = ReceiptRefreshScheduler(
                store: store,
                redeemer: client,
                verifier: ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots),
                settings: settings,
                clock: clock,
                owner: "test-worker",
                logger: quietLogger,
                factsCache: factsCache
            )
            return try await body(fake, scheduler)
        }
    }
}
