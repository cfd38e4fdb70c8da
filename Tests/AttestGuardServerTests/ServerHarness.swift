import AppleServices
import DeviceSimulator
import AttestCore
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardServer
import AttestTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOCore
import Prometheus
import AttestGuardStore
import Testing
import AttestVocabulary

/// Which store a server test runs on.
enum ServerBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// PostgreSQL whenever a URL is configured or CI demands it (CI fails without one, never skips).
    static var available: [ServerBackend] { TestPostgres.isEnabled ? [.sqlite, .postgres] : [.sqlite] }
}

/// A server under test: the real router and engine in simulator mode, on a fresh store, at a manual clock.
struct ServerHarness {
    static let apiKey = "test-gateway-key-0123456789"
    static let narrowKey = "test-narrow-key-0123456789"
    static let adminKey = "test-admin-key-0123456789"
    static let appId = SimulatorFixtures.app.appId
    static let productionOnlyAppId = "ABCDE12345.com.example.productiononly"

    /// Metrics can be bootstrapped once per process.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsSetup.factory(registry: registry))
        return registry
    }()

    static let logger: Logger = {
        var logger = Logger(label: "attestguard.tests.server")
        logger.logLevel = .critical
        return logger
    }()

    /// The shipped default rule set.
    static let rulesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Rules").path

    /// The environment a test server is configured from (exercising the ATTESTGUARD_* overrides).
    static func environment(databaseURL: String?, extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "ATTESTGUARD_MODE": "simulator",
            "ATTESTGUARD_SIMULATOR_SEED": "attestguard-tests",
            "ATTESTGUARD_APPS_NAMES": "main,prod",
            "ATTESTGUARD_APPS_MAIN_APP_ID": appId,
            "ATTESTGUARD_APPS_MAIN_ENVIRONMENTS": "development,production",
            "ATTESTGUARD_APPS_PROD_APP_ID": productionOnlyAppId,
            "ATTESTGUARD_APPS_PROD_ENVIRONMENTS": "production",
            "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator",
            "ATTESTGUARD_API_KEYS_GATEWAY_SECRET_ENV": "TEST_GATEWAY_KEY",
            "ATTESTGUARD_API_KEYS_GATEWAY_SCOPES": "verify,score",
            "ATTESTGUARD_RULES_DIRECTORY": rulesDirectory,
            "ATTESTGUARD_API_KEYS_NARROW_SECRET_ENV": "TEST_NARROW_KEY",
            "ATTESTGUARD_API_KEYS_NARROW_SCOPES": "verify",
            "ATTESTGUARD_API_KEYS_NARROW_APPS": productionOnlyAppId,
            "ATTESTGUARD_API_KEYS_OPERATOR_SECRET_ENV": "TEST_ADMIN_KEY",
            "ATTESTGUARD_API_KEYS_OPERATOR_SCOPES": "verify,admin",
            "ATTESTGUARD_CHALLENGES_MAX_PER_USER": "500",
            // Tests run many servers against one PostgreSQL: no warm pools, so connections open only as needed.
            "ATTESTGUARD_DATABASE_MINIMUM_CONNECTIONS": "0",
            "TEST_GATEWAY_KEY": apiKey,
            "TEST_NARROW_KEY": narrowKey,
            "TEST_ADMIN_KEY": adminKey,
        ]
        if let databaseURL { environment["ATTESTGUARD_DATABASE_URL"] = databaseURL }
        environment["ATTESTGUARD_DATABASE_AUTO_MIGRATE"] = "true"
        environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = TestPostgres.operationTimeoutMilliseconds
        environment["ATTESTGUARD_DATABASE_SQLITE_PATH"] =
            FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-server-\(UUID().uuidString).sqlite").path
        return environment.merging(extra) { _, new in new }
    }

    /// A database URL for `backend`: a fresh, migrated schema on the test PostgreSQL, or nil for SQLite.
    static func databaseURL(_ backend: ServerBackend) async throws -> String? {
        guard backend == .postgres else { return nil }
        return try await TestPostgres.freshMigratedURL(prefix: "s")
    }

    /// Runs `body` against a fresh in-process server on `backend`; `deviceCheck` is the engine's DeviceCheck client
    /// (none by default, as without Apple credentials); `wrapStore` stands between the engine and the store (a
    /// fault injector); `requestLogger` is the application's logger, which request lines go to; `postgresURL` is
    /// the PostgreSQL database to use instead of a fresh schema.
    static func run(
        _ backend: ServerBackend,
        extraEnvironment: [String: String] = [:],
        clock: ManualClock = ManualClock(SimulatorFixtures.now),
        deviceCheck: (any DeviceChecking)? = nil,
        wrapStore: (any RiskStore) -> any RiskStore = { $0 },
        requestLogger: Logger = ServerHarness.logger,
        postgresURL: String? = nil,
        _ body: @escaping @Sendable (APIClient) async throws -> Void
    ) async throws {
        let url: String?
        if let postgresURL { url = postgresURL } else { url = try await databaseURL(backend) }
        let configuration = try await ServerConfigurationLoader.load(file: nil, environment: environment(databaseURL: url, extra: extraEnvironment))
        let store = try await OpenedStore.open(configuration.database, clock: { clock.now() }, logger: logger)
        _ = registry  // bootstrap metrics before anything records one, as `serve` does
        let rules = try RuleSetStartup.load(configuration, clock: clock, logger: logger)
        let engine = Engine(
            store: wrapStore(store.store), apps: AppCatalog(configuration.apps), settings: configuration.engine, clock: clock, deviceCheck: deviceCheck,
            rules: rules.holder,
            shadowRules: rules.shadow?.holder
        )
        do {
            let application = try ServerAssembly.application(
                engine: engine, configuration: configuration, store: store, registry: registry, logger: requestLogger, rules: rules
            )
            try await application.test(.router) { client in
                try await body(APIClient(client: client, clock: clock, engine: engine))
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// A JSON client over Hummingbird's test client.
struct APIClient: Sendable {
    let client: any TestClientProtocol
    let clock: ManualClock
    /// The engine behind the router, for reading what a request stored.
    var engine: Engine? = nil

    struct Reply {
        let status: Int
        let headers: HTTPFields
        let json: [String: Any]
        let text: String

        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        subscript(key: String) -> Any? { json[key] }
    }

    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: Data? = nil,
        apiKey: String? = ServerHarness.apiKey,
        contentType: String? = "application/json",
        headers extraHeaders: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extraHeaders
        if let apiKey { headers[.authorization] = "Bearer \(apiKey)" }
        if body != nil, let contentType { headers[.contentType] = contentType }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        let text = String(buffer: response.body)
        let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return Reply(status: Int(response.status.code), headers: response.headers, json: object, text: text)
    }

    func post(_ path: String, _ value: some Encodable, apiKey: String? = ServerHarness.apiKey) async throws -> Reply {
        try await send(.post, path, body: try JSONEncoder().encode(value), apiKey: apiKey)
    }

    func post(_ path: String, json: [String: Any], apiKey: String? = ServerHarness.apiKey) async throws -> Reply {
        try await send(.post, path, body: try JSONSerialization.data(withJSONObject: json), apiKey: apiKey)
    }

    /// Issues a challenge and returns its text.
    func challenge(
        purpose: String,
        appId: String = ServerHarness.appId,
        userId: String,
        keyId: String? = nil,
        apiKey: String = ServerHarness.apiKey
    ) async throws -> String {
        var body: [String: Any] = ["appId": appId, "purpose": purpose, "userId": userId]
        if let keyId { body["keyId"] = keyId }
        let reply = try await post("/v1/challenges", json: body, apiKey: apiKey)
        try #require(reply.status == 201, "challenge: \(reply.text)")
        return try #require(reply["challenge"] as? String)
    }

    /// Attests `app`'s key with a fresh challenge; returns the reply.
    func attest(_ app: SimulatedAppClient) async throws -> Reply {
        let challenge = try await challenge(purpose: "attestation", appId: app.app.appId, userId: app.userId)
        return try await post("/v1/attestations", try app.attestation(challenge: challenge, at: clock.now()))
    }

    /// Signs and submits one assertion with a fresh challenge bound to the key.
    func assert(_ app: inout SimulatedAppClient, path: String = "/api/orders") async throws -> Reply {
        let challenge = try await challenge(purpose: "assertion", appId: app.app.appId, userId: app.userId, keyId: Data(app.key.keyId).base64EncodedString())
        return try await post("/v1/assertions", app.assertion(challenge: challenge, path: path))
    }
}

/// Simulated apps on simulated devices under the test PKI.
enum SimulatedApps {
    static func make(user: String, device: String = "device-1", environment: AppAttestEnvironment = .development, appId: String = ServerHarness.appId, keyIndex: Int = 0) -> SimulatedAppClient {
        SimulatedAppClient(
            device: SimulatedDevice(pki: SimulatorFixtures.pki, identifier: device, environment: environment),
            app: AppIdentity(appId: appId),
            keyIndex: keyIndex,
            userId: user,
            deviceId: device
        )
    }
}
