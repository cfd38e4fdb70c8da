import AttestGuardWire
import AttestCore
import AttestTestSupport
import DeviceSimulator
import Foundation
import Testing

/// Re-submitting a registered attestation is idempotent only with the challenge that registered the key, before
/// that challenge's expiry plus the clock skew, and while the key is active: a captured object cannot replay.
@Suite("HTTP: re-submitted attestations")
struct ReattestationTests {
    /// The body of `body` with another challenge.
    static func with(challenge: String, _ body: some Encodable) throws -> [String: Any] {
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? [String: Any])
        json["challenge"] = challenge
        return json
    }

    /// Registers a key for `user` on a device of its own; returns the body that registered it.
    static func register(_ api: APIClient, user: String, keyIndex: Int = 0) async throws -> AttestationRequestBody {
        let app = SimulatedApps.make(user: user, device: "\(user)-phone", keyIndex: keyIndex)
        let challenge = try await api.challenge(purpose: "attestation", userId: user)
        let body = try app.attestation(challenge: challenge, at: api.clock.now())
        let reply = try await api.post("/v1/attestations", body)
        try #require(reply.status == 201, "\(reply.text)")
        return body
    }

    @Test("another challenge, a never-issued one or an assertion challenge is challenge_used", arguments: ServerBackend.available)
    func otherChallenges(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let body = try await Self.register(api, user: "dave")
            #expect(try await api.post("/v1/attestations", body).status == 200, "the same submission, at once")

            let fresh = try await api.challenge(purpose: "attestation", userId: "dave")
            let neverIssued = Data(repeating: 7, count: 32).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let assertionPurpose = try await api.challenge(purpose: "assertion", userId: "dave")
            for other in [fresh, neverIssued, assertionPurpose] {
                let reply = try await api.post("/v1/attestations", json: try Self.with(challenge: other, body))
                #expect(reply.status == 409, "\(reply.text)")
                #expect(reply.errorCode == "challenge_used")
            }
        }
    }

    @Test("after the registering challenge's expiry plus the skew, the same submission is challenge_used", arguments: ServerBackend.available)
    func expiredRegistration(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let body = try await Self.register(api, user: "erin")
            api.clock.advance(by: 300 + 120 - 5)  // the default TTL and skew: still inside
            #expect(try await api.post("/v1/attestations", body).status == 200)
            api.clock.advance(by: 10)
            let late = try await api.post("/v1/attestations", body)
            #expect(late.status == 409, "\(late.text)")
            #expect(late.errorCode == "challenge_used")
        }
    }

    @Test("a revoked or superseded key answers key_revoked or key_superseded", arguments: ServerBackend.available)
    func inactiveKeys(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let oldBody = try await Self.register(api, user: "fay")
            #expect(try await api.attest(SimulatedApps.make(user: "fay", device: "fay-phone", keyIndex: 1)).status == 201)
            let superseded = try await api.post("/v1/attestations", oldBody)
            #expect(superseded.errorCode == "key_superseded", "\(superseded.text)")

            let body = try await Self.register(api, user: "gus")
            let keyId = Base64Text.urlEncoded(try #require(Data(base64Encoded: body.keyId)))
            let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(keyId)/revoke"
            #expect(try await api.send(.post, keyPath, apiKey: ServerHarness.adminKey).status == 200)
            let revoked = try await api.post("/v1/attestations", body)
            #expect(revoked.errorCode == "key_revoked", "\(revoked.text)")
        }
    }
}
