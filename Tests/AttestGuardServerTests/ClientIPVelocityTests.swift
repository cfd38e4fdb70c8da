import AttestTestSupport
import Foundation
import Testing

/// Attestations and challenges take the gateway's client IP, so the per-IP velocity of new keys, attestations and
/// failures is counted; IPv6 clients count per /64.
@Suite("HTTP: client IPs on attestations")
struct ClientIPVelocityTests {
    /// Attests a fresh key for `user` from `ip`; returns the verdict's fired rule ids.
    static func attest(_ api: APIClient, user: String, ip: String) async throws -> (status: Int, fired: [String]) {
        let app = SimulatedApps.make(user: user, device: "\(user)-phone")
        let challenge = try await api.challenge(purpose: "attestation", userId: user)
        var payload = try app.attestation(challenge: challenge, at: api.clock.now())
        payload.ip = ip
        let reply = try await api.post("/v1/attestations", payload)
        let reasons = (reply["verdict"] as? [String: Any])?["reasons"] as? [[String: Any]] ?? []
        return (reply.status, reasons.compactMap { $0["ruleId"] as? String })
    }

    @Test("20 new keys from 20 addresses of one /64 fire new-keys-burst; another /64 does not", arguments: ServerBackend.available)
    func newKeysBurstPerNetwork(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            for index in 1...19 {
                let outcome = try await Self.attest(api, user: "burst-\(index)", ip: "2001:db8:7:9::\(String(index, radix: 16))")
                #expect(outcome.status == 201)
                #expect(!outcome.fired.contains("new-keys-burst"), "only \(index) keys so far")
            }
            let other = try await Self.attest(api, user: "elsewhere", ip: "2001:db8:7:a::1")
            #expect(!other.fired.contains("new-keys-burst"), "another /64 is another client")
            let twentieth = try await Self.attest(api, user: "burst-20", ip: "2001:DB8:7:9:0:0:0:14")
            #expect(twentieth.status == 201)
            #expect(twentieth.fired.contains("new-keys-burst"), "\(twentieth.fired)")
        }
    }

    @Test("a client IP that is not an address is 400 invalid_field, on every route that takes one", arguments: ServerBackend.available)
    func malformedAddresses(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let challenge = try await api.post("/v1/challenges", json: [
                "appId": ServerHarness.appId, "purpose": "attestation", "userId": "alice", "ip": "fe80::1%eth0",
            ])
            #expect(challenge.status == 400)
            #expect(challenge.errorCode == "invalid_field")
            let score = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "ip": "203.0.113"])
            #expect(score.status == 400)
            #expect(score.errorCode == "invalid_field")
            let attestation = try await Self.attest(api, user: "bob", ip: "not-an-ip")
            #expect(attestation.status == 400)
        }
    }
}

/// Challenges without a user are limited per (app, client address): an IPv6 client is its /64.
@Suite("HTTP: challenges without a user")
struct UnboundChallengeTests {
    @Test("a client over its limit of user-less challenges gets 429 with Retry-After; another network does not", arguments: ServerBackend.available)
    func perClient(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: ["ATTESTGUARD_CHALLENGES_MAX_UNBOUND_PER_CLIENT": "2"]) { api in
            func challenge(_ ip: String) async throws -> APIClient.Reply {
                try await api.post("/v1/challenges", json: ["appId": ServerHarness.appId, "purpose": "attestation", "ip": ip])
            }
            #expect(try await challenge("2001:db8:5:5::1").status == 201)
            #expect(try await challenge("2001:db8:5:5::2").status == 201)
            let over = try await challenge("2001:db8:5:5:ffff::3")
            #expect(over.status == 429, "\(over.text)")
            #expect(over.errorCode == "rate_limited")
            #expect(over.headers[.retryAfter] != nil)
            #expect(try await challenge("2001:db8:5:6::1").status == 201)
            let bound = try await api.post("/v1/challenges", json: [
                "appId": ServerHarness.appId, "purpose": "attestation", "userId": "kim", "ip": "2001:db8:5:5::1",
            ])
            #expect(bound.status == 201, "challenges for a user count per user")
        }
    }
}
