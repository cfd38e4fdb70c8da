import DeviceSimulator
import AttestCore
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardServer
import Hummingbird
import HummingbirdTesting
import AttestTestSupport
import Foundation
import Testing

/// Each error of the contract, provoked over HTTP.
@Suite("HTTP: contract errors")
struct ContractErrorTests {
    @Test("a replayed or foreign attestation challenge", arguments: ServerBackend.available)
    func attestationChallenges(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let first = SimulatedApps.make(user: "erin", device: "erin-1")
            let challenge = try await api.challenge(purpose: "attestation", userId: "erin")
            #expect(try await api.post("/v1/attestations", try first.attestation(challenge: challenge, at: api.clock.now())).status == 201)
            let second = SimulatedApps.make(user: "erin", device: "erin-2")
            let replayed = try await api.post("/v1/attestations", try second.attestation(challenge: challenge, at: api.clock.now()))
            #expect(replayed.status == 409)
            #expect(replayed.errorCode == "challenge_used")

            let neverIssued = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64URL
            let unknown = try await api.post("/v1/attestations", try second.attestation(challenge: neverIssued, at: api.clock.now()))
            #expect(unknown.errorCode == "challenge_not_found")
            #expect(unknown.status == 422)

            let otherUsers = try await api.challenge(purpose: "attestation", userId: "mallory")
            let foreign = try await api.post("/v1/attestations", try second.attestation(challenge: otherUsers, at: api.clock.now()))
            #expect(foreign.status == 422)
            #expect(foreign.errorCode == "challenge_mismatch")
        }
    }

    @Test("an expired challenge, beyond the clock-skew tolerance", arguments: ServerBackend.available)
    func expiredChallenge(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "frank", device: "frank-1")
            #expect(try await api.attest(app).status == 201)
            let challenge = try await api.challenge(purpose: "assertion", userId: "frank", keyId: app.key.keyIdBase64)
            let body = app.assertion(challenge: challenge)
            api.clock.advance(by: 300 + 121)
            let reply = try await api.post("/v1/assertions", body)
            #expect(reply.status == 422)
            #expect(reply.errorCode == "challenge_expired")
        }
    }

    @Test("another user's key, a revoked key, an unknown key", arguments: ServerBackend.available)
    func keyOwnership(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "grace", device: "grace-1")
            #expect(try await api.attest(app).status == 201)
            var stolen = app
            stolen.userId = "heidi"
            let challenge = try await api.challenge(purpose: "assertion", userId: "heidi")
            let mismatch = try await api.post("/v1/assertions", stolen.assertion(challenge: challenge))
            #expect(mismatch.status == 422)
            #expect(mismatch.errorCode == "key_user_mismatch")

            let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)"
            #expect(try await api.send(.post, keyPath + "/revoke").status == 403)
            let revoked = try await api.send(.post, keyPath + "/revoke", apiKey: ServerHarness.adminKey)
            #expect(revoked.status == 200)
            #expect(revoked["status"] as? String == "revoked")
            let afterRevoke = try await api.assert(&app)
            #expect(afterRevoke.status == 422)
            #expect(afterRevoke.errorCode == "key_revoked")

            let ghost = SimulatedApps.make(user: "ivan", device: "ivan-1")
            let unknown = try await api.send(.get, "/v1/apps/\(ServerHarness.appId)/keys/\(ghost.key.keyIdBase64URL)")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "key_not_found")
        }
    }

    @Test("a development key for a production-only app", arguments: ServerBackend.available)
    func environmentNotAllowed(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let app = SimulatedApps.make(user: "judy", device: "judy-1", environment: .development, appId: ServerHarness.productionOnlyAppId)
            let reply = try await api.attest(app)
            #expect(reply.status == 422)
            #expect(reply.errorCode == "environment_not_allowed")
            // Simulator mode refuses production keys even where the app accepts them.
            let production = SimulatedApps.make(user: "judy", device: "judy-2", environment: .production)
            let refused = try await api.attest(production)
            #expect(refused.errorCode == "environment_not_allowed")
        }
    }

    @Test("a request that differs from the one the assertion signed", arguments: ServerBackend.available)
    func requestBinding(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "kim", device: "kim-1")
            #expect(try await api.attest(app).status == 201)
            for tamper in ["method", "path", "body"] {
                let challenge = try await api.challenge(purpose: "assertion", userId: "kim", keyId: app.key.keyIdBase64)
                var body = app.assertion(challenge: challenge)
                switch tamper {
                case "method": body.request.method = "PUT"
                case "path": body.request.path = "/api/refunds"
                default: body.request.bodySha256 = Data(count: 32).base64URL
                }
                let reply = try await api.post("/v1/assertions", body)
                #expect(reply.status == 422, "\(tamper)")
                #expect(reply.errorCode == "request_binding_mismatch", "\(tamper)")
            }
            // Nothing was consumed by the refused assertions: the key still works.
            #expect(try await api.assert(&app).status == 200)
        }
    }

    @Test("over the per-user challenge quota: 429 with Retry-After", arguments: ServerBackend.available)
    func quota(backend: ServerBackend) async throws {
        let extra = ["ATTESTGUARD_CHALLENGES_MAX_PER_USER": "3", "ATTESTGUARD_CHALLENGES_QUOTA_WINDOW_SECONDS": "60"]
        try await ServerHarness.run(backend, extraEnvironment: extra) { api in
            for _ in 0..<3 { _ = try await api.challenge(purpose: "attestation", userId: "leo") }
            let reply = try await api.post("/v1/challenges", json: ["appId": ServerHarness.appId, "purpose": "attestation", "userId": "leo"])
            #expect(reply.status == 429)
            #expect(reply.errorCode == "rate_limited")
            #expect(reply.headers[.retryAfter] == "60")
            api.clock.advance(by: 61)
            _ = try await api.challenge(purpose: "attestation", userId: "leo")
        }
    }

    @Test("API keys: none, wrong, missing scope, other app", arguments: [ServerBackend.sqlite])
    func apiKeys(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let body: [String: Any] = ["appId": ServerHarness.appId, "purpose": "attestation", "userId": "mia"]
            #expect(try await api.post("/v1/challenges", json: body, apiKey: nil).status == 401)
            #expect(try await api.post("/v1/challenges", json: body, apiKey: "not-a-key-at-all-xxxxxxxx").status == 401)
            let otherApp = try await api.post("/v1/challenges", json: body, apiKey: ServerHarness.narrowKey)
            #expect(otherApp.status == 403)
            #expect(otherApp.errorCode == "forbidden")
            var unknownApp = body
            unknownApp["appId"] = "ZZZZZ99999.com.example.unknown"
            let missing = try await api.post("/v1/challenges", json: unknownApp)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "app_not_found")
        }
    }

    @Test("an unreachable database: 503 store_unavailable with Retry-After")
    func storeUnavailable() async throws {
        let extra = [
            "ATTESTGUARD_DATABASE_URL": "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
            "ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS": "300",
            "ATTESTGUARD_DATABASE_AUTO_MIGRATE": "false",
        ]
        let configuration = try await ServerConfigurationLoader.load(file: nil, environment: ServerHarness.environment(databaseURL: nil, extra: extra))
        let clock = ManualClock(SimulatorFixtures.now)
        let store = try await OpenedStore.open(configuration.database, clock: { clock.now() }, logger: ServerHarness.logger)
        let engine = Engine(store: store.store, apps: AppCatalog(configuration.apps), settings: configuration.engine, clock: clock)
        let router = try ServerAssembly.router(engine: engine, configuration: configuration, store: store, registry: ServerHarness.registry)
        let application = Application(router: router, services: store.services, logger: ServerHarness.logger)
        try await application.test(.router) { client in
            let api = APIClient(client: client, clock: clock)
            let reply = try await api.post("/v1/challenges", json: ["appId": ServerHarness.appId, "purpose": "attestation", "userId": "ned"])
            #expect(reply.status == 503)
            #expect(reply.errorCode == "store_unavailable")
            #expect(reply.headers[.retryAfter] != nil)
            #expect(try await api.send(.get, "/readyz", apiKey: nil).status == 503)
        }
    }
}
