import AttestCore
import DeviceSimulator
import Foundation
import HTTPTypes
import Testing

/// The routes an app reaches through its gateway: identity only from the gateway (the app from the route policy, the
/// user and address from the trusted headers), never from the body.
@Suite("HTTP: app-facing routes")
struct AppFacingRouteTests {
    /// The headers the gateway sets on an app-facing request.
    static func gatewayHeaders(user: String? = "alice", target: String? = "/attestguard/challenge", apiKey: String? = ForwardAuthHarness.gatewayKey) -> HTTPFields {
        var headers = HTTPFields()
        if let apiKey { headers[.authorization] = "Bearer \(apiKey)" }
        if let target { headers[HTTPField.Name("X-Original-URI")!] = target }
        if let user { headers[HTTPField.Name("X-AttestGuard-User")!] = user }
        headers[HTTPField.Name("X-AttestGuard-Client-IP")!] = "203.0.113.9"
        return headers
    }

    static func post(_ api: APIClient, _ path: String, _ json: [String: Any], headers: HTTPFields = gatewayHeaders()) async throws -> APIClient.Reply {
        try await api.send(.post, path, body: try JSONSerialization.data(withJSONObject: json), apiKey: nil, headers: headers)
    }

    @Test("a challenge and an attestation bind the gateway's user, whatever the body claims; the key then asserts", arguments: ServerBackend.available)
    func attestThroughTheGateway(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend, requiredPercent: 100) { api, _ in
            let issued = try await Self.post(api, "/v1/app/challenges", ["purpose": "attestation", "userId": "mallory", "appId": "ABCDE12345.com.example.other"])
            #expect(issued.status == 201, "\(issued.text)")
            #expect(Set(issued.json.keys) == ["challenge", "purpose", "expiresAt"])
            let challenge = try #require(issued["challenge"] as? String)

            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            var attestation = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(try app.attestation(challenge: challenge, at: api.clock.now()))) as? [String: Any] ?? [:]
            attestation["userId"] = "mallory"
            let registered = try await Self.post(api, "/v1/app/attestations", attestation)
            #expect(registered.status == 201, "\(registered.text)")
            #expect(registered["keyId"] as? String == app.key.keyIdBase64)
            #expect(registered["verdict"] == nil, "the verdict is the gateway's, not the app's")
            let key = try await api.send(.get, "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)")
            #expect(key["userId"] as? String == "alice")

            // The same user asks for an assertion challenge for its key, and forward-auth accepts the assertion.
            let assertionChallenge = try await Self.post(api, "/v1/app/challenges", ["purpose": "assertion", "keyId": app.key.keyIdBase64])
            let signed = app.assertion(challenge: try #require(assertionChallenge["challenge"] as? String))
            let passed = try await api.forwardAuth(GatewayAsk(assertion: signed))
            #expect(passed.status == 200, "\(passed.text)")
        }
    }

    @Test("whether this user must attest: only {attest}, from the app's rollout")
    func attestationRequired() async throws {
        for (percent, expected) in [(0, false), (100, true)] {
            try await ForwardAuthHarness.run(.sqlite, requiredPercent: percent) { api, _ in
                let reply = try await api.send(.get, "/v1/app/attestation-required", apiKey: nil, headers: Self.gatewayHeaders(target: "/attestguard/attest"))
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json.count == 1 && reply["attest"] as? Bool == expected)
            }
        }
    }

    @Test("no user, no gateway key, no client-facing target: refused, with the gateway's fault named")
    func refusals() async throws {
        try await ForwardAuthHarness.run(.sqlite) { api, _ in
            let body: [String: Any] = ["purpose": "attestation"]
            let userless = try await Self.post(api, "/v1/app/challenges", body, headers: Self.gatewayHeaders(user: nil))
            #expect(userless.status == 403 && userless.errorCode == "user_missing")
            let keyless = try await Self.post(api, "/v1/app/challenges", body, headers: Self.gatewayHeaders(apiKey: nil))
            #expect(keyless.status == 500 && keyless.errorCode == "gateway_unauthorized")
            let verifyKey = try await Self.post(api, "/v1/app/challenges", body, headers: Self.gatewayHeaders(apiKey: ServerHarness.apiKey))
            #expect(verifyKey.status == 500 && verifyKey.errorCode == "gateway_unauthorized")
            let untargeted = try await Self.post(api, "/v1/app/challenges", body, headers: Self.gatewayHeaders(target: nil))
            #expect(untargeted.status == 400 && untargeted.errorCode == "missing_field")
            let badPurpose = try await Self.post(api, "/v1/app/challenges", ["purpose": "anything"])
            #expect(badPurpose.status == 400)
        }
    }
}
