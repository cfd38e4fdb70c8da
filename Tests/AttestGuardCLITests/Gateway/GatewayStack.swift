import AttestCore
import AttestTestSupport
import Crypto
import DeviceSimulator
import Foundation
import Synchronization
import Testing

/// What the gateway tests run: `attestguard serve` (simulator mode, SQLite, the shipped route policy and rules, a
/// fake Apple for DeviceCheck), an upstream that records what reaches it, and one gateway in front, started from
/// the shipped configuration with only its ports and paths replaced.
final class GatewayStack: @unchecked Sendable {
    /// The gateway's API key (scope `gateway`).
    static let gatewayKey = "gateway-edge-key-0123456789"
    /// The shipped route policy's app.
    static let appId = "ABCDE12345.com.example.attestguard"

    let attestGuard: ServerProcess
    let fakeApple: ServerProcess
    let upstream: UpstreamRecorder
    private let sqlite: String

    private init(attestGuard: ServerProcess, fakeApple: ServerProcess, upstream: UpstreamRecorder, sqlite: String) {
        self.attestGuard = attestGuard
        self.fakeApple = fakeApple
        self.upstream = upstream
        self.sqlite = sqlite
    }

    /// The gateways started on this stack, stopped with it.
    private let gateways = Mutex<[GatewayProcess]>([])

    /// Runs `body` on a fresh stack and stops everything it started, whether `body` throws or not.
    /// - Parameter challengeSeconds: The challenges' lifetime (`challenges.ttlSeconds`; the clock skew is 0 when set).
    /// - Parameter cuttableStore: Runs AttestGuard on the test PostgreSQL through a ``CuttableLink`` (``storeLink``),
    ///   so that a test can take the database away; forward-auth then answers within 500 ms.
    /// - Parameter sessionTokens: Issues session tokens for the app (a fresh signing key) and adds the `token` route
    ///   ``tokenRoute`` to the shipped policy.
    /// - Parameter debugTokens: The app accepts debug tokens (`apps.<app>.debugTokens.enabled`).
    static func run(
        challengeSeconds: Int? = nil, cuttableStore: Bool = false, sessionTokens: Bool = false, debugTokens: Bool = false,
        _ body: (GatewayStack) async throws -> Void
    ) async throws {
        let stack = try await start(challengeSeconds: challengeSeconds, cuttableStore: cuttableStore, sessionTokens: sessionTokens, debugTokens: debugTokens)
        do {
            try await body(stack)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// Keeps `gateway` to stop with the stack.
    func keep(_ gateway: GatewayProcess) -> GatewayProcess {
        gateways.withLock { $0.append(gateway) }
        return gateway
    }

    /// The link between AttestGuard and PostgreSQL, when the stack was started with a cuttable store.
    private(set) var storeLink: CuttableLink?
    /// The policy directory written for a stack with session tokens.
    private var policies: URL?

    /// How long a gateway may reuse a forward-auth answer that admitted a session token on a stack with session tokens
    /// (the retired-key refresh period).
    static let tokenReuse: Duration = .seconds(5)

    /// The `token` route a stack with session tokens adds to the shipped policy.
    static let tokenRoute = "/api/feed"

    private static func start(challengeSeconds: Int?, cuttableStore: Bool, sessionTokens: Bool, debugTokens: Bool) async throws -> GatewayStack {
        let (fakeApple, apple) = try await ReceiptBatchProcessTests.startFakeApple()
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-gateway-\(UUID().uuidString).sqlite").path
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: sqlite).merging(apple) { _, new in new }
        environment["ATTESTGUARD_API_KEYS_NAMES"] = "gateway,edge"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SCOPES"] = "verify,score,admin,devicecheck:write"
        environment["ATTESTGUARD_API_KEYS_EDGE_SECRET_ENV"] = "EDGE_TEST_KEY"
        environment["ATTESTGUARD_API_KEYS_EDGE_SCOPES"] = "gateway"
        environment["EDGE_TEST_KEY"] = gatewayKey
        environment["ATTESTGUARD_GATEWAY_POLICY_DIRECTORY"] = GatewayBinaries.shipped.appendingPathComponent("policy").path
        environment["ATTESTGUARD_RULES_DIRECTORY"] = GatewayBinaries.shipped.deletingLastPathComponent().appendingPathComponent("Rules").path
        // Below the gateways' widened read timeout (``GatewayStack/widenedTimeouts``), far above any honest request.
        environment["ATTESTGUARD_GATEWAY_ANSWER_WITHIN_MILLISECONDS"] = "20000"
        var link: CuttableLink?
        if cuttableStore {
            let url = try await TestPostgres.freshSchemaURL(prefix: "g")
            guard let components = URLComponents(string: url), let port = components.port else { throw GatewayProcess.StartFailure(description: "no port in \(url)") }
            let cuttable = try CuttableLink(to: port)
            var linked = components
            linked.host = "127.0.0.1"
            linked.port = cuttable.port
            environment["ATTESTGUARD_DATABASE_URL"] = linked.string
            environment["ATTESTGUARD_DATABASE_SQLITE_PATH"] = nil
            environment["ATTESTGUARD_GATEWAY_ANSWER_WITHIN_MILLISECONDS"] = "500"
            link = cuttable
        }
        if let challengeSeconds {
            environment["ATTESTGUARD_CHALLENGES_TTL_SECONDS"] = String(challengeSeconds)
            environment["ATTESTGUARD_CLOCK_SKEW_SECONDS"] = "0"
        }
        environment["ATTESTGUARD_RECEIPTS_REFRESH_ENABLED"] = "false"
        var policies: URL?
        if sessionTokens {
            let shipped = GatewayBinaries.shipped.appendingPathComponent("policy/example.yaml")
            let policy = try String(contentsOf: shipped, encoding: .utf8)
                + "  - path: \(tokenRoute)\n    methods: [GET]\n    protection: token\n"
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-gateway-policy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try policy.write(to: directory.appendingPathComponent("example.yaml"), atomically: true, encoding: .utf8)
            policies = directory
            environment["ATTESTGUARD_GATEWAY_POLICY_DIRECTORY"] = directory.path
            environment["ATTESTGUARD_SESSION_TOKENS_SIGNING_KEY_ENV"] = "TEST_SESSION_TOKEN_KEY"
            environment["TEST_SESSION_TOKEN_KEY"] = P256.Signing.PrivateKey().pemRepresentation
            environment["ATTESTGUARD_APPS_MAIN_SESSION_TOKENS_ENABLED"] = "true"
            // Answers admitting a token are reused for at most five seconds: long enough that a test's next request
            // meets the kept answer on a busy machine, short enough that a revocation shows at the gateway in its time.
            environment["ATTESTGUARD_SESSION_TOKENS_REVOCATION_REFRESH_SECONDS"] = String(Int(tokenReuse.components.seconds))
        }
        if debugTokens { environment["ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED"] = "true" }
        // Every user must attest: require-for-rollout routes require, and the rollout advice says so.
        environment["ATTESTGUARD_APPS_MAIN_ATTESTATION_REQUIRED_PERCENT"] = "100"
        do {
            let attestGuard = try await ServerProcess(environment: environment)
            let upstream = try await UpstreamRecorder.start()
            let stack = GatewayStack(attestGuard: attestGuard, fakeApple: fakeApple, upstream: upstream, sqlite: sqlite)
            stack.storeLink = link
            stack.policies = policies
            return stack
        } catch {
            fakeApple.stop()
            policies.map { try? FileManager.default.removeItem(at: $0) }
            throw error
        }
    }

    func stop() async {
        for gateway in gateways.withLock({ $0 }) { gateway.stop() }
        attestGuard.stop()
        storeLink?.close()
        fakeApple.stop()
        await upstream.stop()
        try? FileManager.default.removeItem(atPath: sqlite)
        policies.map { try? FileManager.default.removeItem(at: $0) }
    }

    /// A simulated app instance of `user` on `device`.
    func app(user: String, device: String, keyIndex: Int = 0) -> SimulatedAppClient {
        SimulatedAppClient(
            device: SimulatedDevice(pki: SimulatorFixtures.pki, identifier: device, environment: .development),
            app: AppIdentity(appId: Self.appId), keyIndex: keyIndex, userId: user, deviceId: device
        )
    }

    /// Attests `app`'s key (through AttestGuard's own API, as the App side's routes will through the gateway).
    func attest(_ app: SimulatedAppClient) async throws {
        let challenge = try await attestGuard.challenge(purpose: "attestation", userId: app.userId)
        let reply = try await attestGuard.post("v1/attestations", try app.attestation(challenge: challenge, at: Date()))
        try #require(reply.status == 201, "attestation: \(reply.json)")
    }

    /// `request` signed by `app` with a fresh assertion challenge: the headers an app sends with it.
    func sign(_ request: GatewayRequest, by app: inout SimulatedAppClient) async throws -> GatewayRequest {
        let challenge = try await attestGuard.challenge(purpose: "assertion", userId: app.userId, keyId: app.key.keyIdBase64)
        var signed = request
        signed.assertion = app.assertion(challenge: challenge, method: request.method, path: request.target, body: Data(request.body))
        return signed
    }

    /// What an app sends through the gateway on `port` to one of the app-facing routes, as `user`; the JSON answer.
    func appRoute(_ method: String, _ path: String, _ json: [String: Any]? = nil, user: String, port: Int) async throws -> GatewayAnswer {
        let body = try json.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        return try await GatewayRequest(method: method, target: path, body: body, user: user).send(to: port)
    }

    /// Attests `app`'s key through the gateway on `port` only: a challenge, then the attestation.
    func attestThroughGateway(_ app: SimulatedAppClient, port: Int) async throws {
        let issued = try await appRoute("POST", "/attestguard/challenges", ["purpose": "attestation"], user: app.userId, port: port)
        try #require(issued.status == 201, "challenge: \(issued.status) \(issued.text)")
        let challenge = try #require((try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])?["challenge"] as? String)
        let payload = try app.attestation(challenge: challenge, at: Date())
        let body = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(payload)) as? [String: Any])
        let registered = try await appRoute("POST", "/attestguard/attestations", body, user: app.userId, port: port)
        try #require(registered.status == 201, "attestation: \(registered.status) \(registered.text)")
    }

    /// `request` signed by `app` with an assertion challenge it got through the gateway on `port`.
    func signThroughGateway(_ request: GatewayRequest, by app: inout SimulatedAppClient, port: Int) async throws -> GatewayRequest {
        let issued = try await appRoute("POST", "/attestguard/challenges", ["purpose": "assertion", "keyId": app.key.keyIdBase64], user: app.userId, port: port)
        try #require(issued.status == 201, "challenge: \(issued.status) \(issued.text)")
        let challenge = try #require((try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])?["challenge"] as? String)
        var signed = request
        signed.assertion = app.assertion(challenge: challenge, method: request.method, path: request.target, body: Data(request.body))
        return signed
    }

    /// Marks `device` through DeviceCheck as having claimed the promotion (bit 0), as the app's backend does.
    func markPromotionClaimed(device: String) async throws {
        let update: [String: Any] = [
            "appId": Self.appId, "deviceToken": Data("device-token:\(device)".utf8).base64EncodedString(),
            "subject": ["kind": "device", "id": device], "bit0": true,
        ]
        let reply = try await attestGuard.send("POST", "v1/devicecheck/update", body: try JSONSerialization.data(withJSONObject: update))
        try #require(reply.status == 200, "DeviceCheck update: \(reply.json)")
    }

    /// What the upstream received for `target`.
    func received(_ target: String) -> [UpstreamRecorder.Received] {
        upstream.requests.filter { $0.target == target }
    }
}
