import AppleServices
import FakeApple
import AttestCore
import AttestGuardEngine
import AttestTestSupport
import Crypto
import Foundation
import Logging

/// A server under test whose DeviceCheck client talks to an in-process fake Apple, with API keys for the
/// DeviceCheck scopes.
enum DeviceCheckHarness {
    static let readWriteKey = "test-devicecheck-key-0123456789"
    static let readOnlyKey = "test-devicecheck-reader-0123456789"
    static let narrowKey = "test-devicecheck-narrow-0123456789"
    static let teamId = "ABCDE12345"

    /// Keys `devicecheck` (read and write, every app), `dcreader` (read only) and `dcnarrow` (read and write on
    /// the production-only app), beside the harness's own keys.
    static func environment(sqlitePath: String? = nil) -> [String: String] {
        var environment = [
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,devicecheck,dcreader,dcnarrow",
            "ATTESTGUARD_API_KEYS_DEVICECHECK_SECRET_ENV": "TEST_DEVICECHECK_KEY",
            "ATTESTGUARD_API_KEYS_DEVICECHECK_SCOPES": "devicecheck:read,devicecheck:write",
            "ATTESTGUARD_API_KEYS_DCREADER_SECRET_ENV": "TEST_DEVICECHECK_READER_KEY",
            "ATTESTGUARD_API_KEYS_DCREADER_SCOPES": "devicecheck:read",
            "ATTESTGUARD_API_KEYS_DCNARROW_SECRET_ENV": "TEST_DEVICECHECK_NARROW_KEY",
            "ATTESTGUARD_API_KEYS_DCNARROW_SCOPES": "devicecheck:read,devicecheck:write",
            "ATTESTGUARD_API_KEYS_DCNARROW_APPS": ServerHarness.productionOnlyAppId,
            "TEST_DEVICECHECK_KEY": readWriteKey,
            "TEST_DEVICECHECK_READER_KEY": readOnlyKey,
            "TEST_DEVICECHECK_NARROW_KEY": narrowKey,
        ]
        if let sqlitePath { environment["ATTESTGUARD_DATABASE_SQLITE_PATH"] = sqlitePath }
        return environment
    }

    /// A device token that the fake maps to `device` (its base64), as `DCDevice` tokens are base64.
    static func token(_ device: String) -> String { Base64Text.encode(Array(device.utf8)) }

    /// Runs `body` against a server on `backend` whose engine asks a fake Apple with `faults`; the body gets the
    /// client and the fake (for its state).
    static func run(
        _ backend: ServerBackend,
        faults: FakeAppleFaults = .none,
        sqlitePath: String? = nil,
        extraEnvironment: [String: String] = [:],
        _ body: @escaping @Sendable (APIClient, FakeAppleServer) async throws -> Void
    ) async throws {
        let clock = ManualClock(SimulatorFixtures.now)
        let key = P256.Signing.PrivateKey()
        let credentials = try AppleProviderCredentials(teamId: teamId, keyId: "KEY1234567", privateKeyPEM: key.pemRepresentation)
        let configuration = FakeAppleConfiguration(
            teamId: teamId,
            keyId: "KEY1234567",
            providerPublicKeyPEM: credentials.publicKeyPEM,
            pki: SimulatorFixtures.pki,
            faults: faults,
            now: { clock.now() }
        )
        var logger = Logger(label: "attestguard.tests.fake-apple")
        logger.logLevel = .critical
        let fake = try FakeAppleServer(configuration: configuration, logger: logger)
        try await fake.withRunning { port in
            // A deadline no busy CI machine reaches: a dropped connection must read as one, never as a timeout.
            let client = DeviceCheckClient(
                tokens: ProviderTokenSource(credentials: credentials, now: { clock.now() }),
                configuration: DeviceCheckClient.Configuration(baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(60)),
                now: { clock.now() }
            )
            try await ServerHarness.run(
                backend, extraEnvironment: environment(sqlitePath: sqlitePath).merging(extraEnvironment) { _, new in new }, clock: clock, deviceCheck: client) { api in
                try await body(api, fake)
            }
        }
    }
}
