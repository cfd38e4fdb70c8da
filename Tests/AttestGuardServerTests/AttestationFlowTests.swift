import AttestGuardWire
import DeviceSimulator
import AttestCore
import AttestGuardRuntime
import AttestGuardServer
import AttestTestSupport
import Foundation
import Testing

@Suite("HTTP: challenge, attestation, assertions")
struct AttestationFlowTests {
    @Test("challenge -> attestation -> 100 assertions, each counter accepted once", arguments: ServerBackend.available)
    func hundredAssertions(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            let attested = try await api.attest(app)
            #expect(attested.status == 201, "\(attested.text)")
            let key = try #require(attested["key"] as? [String: Any])
            #expect(key["status"] as? String == "active")
            #expect(key["environment"] as? String == "development")
            #expect(key["counter"] as? Int == 0)
            #expect((key["receipt"] as? [String: Any])?["type"] as? String == "ATTEST")
            #expect((attested["verdict"] as? [String: Any])?["decision"] as? String == "allow")

            var lastBody: AssertionRequestBody?
            for expected in 1...100 {
                let challenge = try await api.challenge(purpose: "assertion", userId: "alice", keyId: app.key.keyIdBase64)
                let body = app.assertion(challenge: challenge)
                let reply = try await api.post("/v1/assertions", body)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply["counter"] as? Int == expected)
                #expect(reply["requestBinding"] as? String == "verified")
                lastBody = body
            }
            let replay = try await api.post("/v1/assertions", try #require(lastBody))
            #expect(replay.status == 409)
            #expect(replay.errorCode == "assertion_already_accepted")

            let stored = try await api.send(.get, "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)")
            #expect(stored.status == 200, "\(stored.text)")
            #expect(stored["counter"] as? Int == 100)
        }
    }

    @Test("re-submitting the same attestation is idempotent and keeps the counter", arguments: ServerBackend.available)
    func idempotentAttestation(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "bob", device: "bob-phone")
            let challenge = try await api.challenge(purpose: "attestation", userId: "bob")
            let body = try app.attestation(challenge: challenge, at: api.clock.now())
            #expect(try await api.post("/v1/attestations", body).status == 201)
            #expect(try await api.assert(&app).status == 200)
            let again = try await api.post("/v1/attestations", body)
            #expect(again.status == 200, "\(again.text)")
            #expect(again["idempotent"] as? Bool == true)
            #expect((again["key"] as? [String: Any])?["counter"] as? Int == 1)
        }
    }

    @Test("a new key on the same device supersedes the old one", arguments: ServerBackend.available)
    func superseding(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var old = SimulatedApps.make(user: "carol", device: "carol-phone", keyIndex: 0)
            #expect(try await api.attest(old).status == 201)
            let new = SimulatedApps.make(user: "carol", device: "carol-phone", keyIndex: 1)
            let reply = try await api.attest(new)
            #expect(reply.status == 201)
            #expect(reply["supersededKeyIds"] as? [String] == [old.key.keyIdBase64])
            let rejected = try await api.assert(&old)
            #expect(rejected.status == 422)
            #expect(rejected.errorCode == "key_superseded")
        }
    }

    @Test("a legacy clientData format is accepted without request binding", arguments: [ServerBackend.sqlite])
    func legacyFormat(backend: ServerBackend) async throws {
        let extra = [
            "ATTESTGUARD_APPS_MAIN_CLIENT_DATA_FORMAT": "legacy",
            "ATTESTGUARD_APPS_MAIN_LEGACY_CHALLENGE_POINTER": "/nonce",
        ]
        try await ServerHarness.run(backend, extraEnvironment: extra) { api in
            let app = SimulatedApps.make(user: "dave", device: "dave-phone")
            #expect(try await api.attest(app).status == 201)
            let challenge = try await api.challenge(purpose: "assertion", userId: "dave")
            let clientData = Data(#"{"nonce":"\#(challenge)","purpose":"checkout"}"#.utf8)
            let assertion = SimulatedKey.assertion(privateKey: app.key.privateKey, app: app.app, clientData: Array(clientData), counter: 1)
            let reply = try await api.post("/v1/assertions", json: [
                "appId": ServerHarness.appId, "keyId": app.key.keyIdBase64, "userId": "dave",
                "assertion": Data(assertion).base64EncodedString(),
                "clientData": clientData.base64URL,
                "request": ["method": "GET", "path": "/anything", "bodySha256": Data(count: 32).base64URL],
            ])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["clientDataFormat"] as? String == "legacy")
            #expect(reply["requestBinding"] as? String == "not_checked")
        }
    }
}

extension Data {
    var base64URL: String {
        Base64Text.urlEncoded(self)
    }
}

extension SimulatedKey {
    var keyIdBase64URL: String { Data(keyId).base64URL }
}
