import AttestTestSupport
import Foundation
import Testing

/// User ids compare as bytes everywhere, and identifiers are checked before anything is stored under them.
@Suite("HTTP: identifiers compare as bytes and are bounded")
struct IdentifierBytesTests {
    static let composed = "Ren\u{E9}e"  // NFC
    static let decomposed = "Rene\u{301}e"  // NFD, canonically equivalent

    @Test("an assertion by the NFD form of the key's NFC user is key_user_mismatch", arguments: ServerBackend.available)
    func keyBindingComparesBytes(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let app = SimulatedApps.make(user: Self.composed, device: "renee-phone")
            #expect(try await api.attest(app).status == 201)
            var impostor = app
            impostor.userId = Self.decomposed
            let reply = try await api.assert(&impostor)
            #expect(reply.status == 422, "\(reply.text)")
            #expect(reply.errorCode == "key_user_mismatch")
        }
    }

    @Test("the per-user challenge quota counts the NFC and NFD forms apart", arguments: ServerBackend.available)
    func quotaComparesBytes(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: ["ATTESTGUARD_CHALLENGES_MAX_PER_USER": "2"]) { api in
            for _ in 0..<2 { _ = try await api.challenge(purpose: "attestation", userId: Self.composed) }
            let over = try await api.post("/v1/challenges", json: ["appId": ServerHarness.appId, "purpose": "attestation", "userId": Self.composed])
            #expect(over.status == 429)
            let other = try await api.post("/v1/challenges", json: ["appId": ServerHarness.appId, "purpose": "attestation", "userId": Self.decomposed])
            #expect(other.status == 201, "\(other.text)")
        }
    }

    @Test("an attestation for an unknown or malformed app id records no velocity", arguments: ServerBackend.available)
    func unknownAppsWriteNoVelocity(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let app = SimulatedApps.make(user: "mallory", device: "mallory-phone")
            let challenge = try await api.challenge(purpose: "attestation", userId: "mallory")
            var body = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(app.attestation(challenge: challenge, at: api.clock.now()))) as? [String: Any])
            for (appId, status, code) in [
                ("ABCDE12345.com.example.missing", 404, "app_not_found"),
                ("ABCDE12345." + String(repeating: "x", count: 20_000), 400, "invalid_field"),
                ("ABCDE12345.com.example.caf\u{E9}", 400, "invalid_field"),
            ] {
                body["appId"] = appId
                let reply = try await api.post("/v1/attestations", json: body)
                #expect(reply.status == status, "\(reply.text.prefix(200))")
                #expect(reply.errorCode == code)
            }
            let engine = try #require(api.engine)
            #expect(engine.velocity.backlog.pending == 0, "nothing was counted for apps that do not exist")
        }
    }
}
