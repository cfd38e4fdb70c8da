import AttestGuardEngine
import AttestGuardWire
import AttestTestSupport
import Crypto
import DeviceSimulator
import Foundation
import HTTPTypes
import JWTKit
import Testing

/// `POST /v1/app/session-tokens` exchanges an assertion of that very request for an ES256 session token, which the
/// keys of `GET /v1/session-tokens/jwks` verify.
@Suite("HTTP: session tokens")
struct SessionTokenRouteTests {
    static let signingKey = P256.Signing.PrivateKey()
    static let environment = [
        "ATTESTGUARD_SESSION_TOKENS_SIGNING_KEY_ENV": "TEST_SESSION_TOKEN_KEY",
        "TEST_SESSION_TOKEN_KEY": signingKey.pemRepresentation,
        "ATTESTGUARD_APPS_MAIN_SESSION_TOKENS_ENABLED": "true",
        "ATTESTGUARD_APPS_MAIN_SESSION_TOKENS_TTL_SECONDS": "300",
    ]
    /// The client-facing path the shipped gateways give the route.
    static let path = "/attestguard/session-tokens"

    static let rules = """
        version: 1
        rules:
          - id: mallory-gets-no-session
            when: request.action == "session_token" and request.user_id == "mallory"
            decide: deny
        """

    /// The app signs an exchange request (its body `signedBody`) and sends `sentBody`, through the gateway.
    static func exchange(
        _ api: APIClient, _ app: inout SimulatedAppClient, signedBody: Data = Data(), sentBody: Data? = nil, signed: AssertionRequestBody? = nil
    ) async throws -> (APIClient.Reply, AssertionRequestBody) {
        let assertion: AssertionRequestBody
        if let signed {
            assertion = signed
        } else {
            let challenge = try await api.challenge(purpose: "assertion", appId: app.app.appId, userId: app.userId, keyId: app.key.keyIdBase64)
            assertion = app.assertion(challenge: challenge, method: "POST", path: path, body: signedBody)
        }
        var headers = AppFacingRouteTests.gatewayHeaders(user: app.userId, target: path)
        for (name, value) in assertion.appAttestHeaders { headers[HTTPField.Name(name.rawValue)!] = value }
        let body = sentBody ?? signedBody
        let reply = try await api.send(.post, "/v1/app/session-tokens", body: body.isEmpty ? nil : body, apiKey: nil, headers: headers)
        return (reply, assertion)
    }

    static func run(rules: String = rules, environment extra: [String: String] = environment, _ body: @escaping @Sendable (APIClient) async throws -> Void) async throws {
        try await ForwardAuthHarness.withDirectories(rules: rules) { policies, rulesDirectory in
            let environment = ForwardAuthHarness.environment(policies: policies, rules: rulesDirectory).merging(extra) { _, new in new }
            try await ServerHarness.run(.sqlite, extraEnvironment: environment, body)
        }
    }

    @Test("an assertion of the request buys a token the published keys verify; the same assertion twice buys nothing")
    func exchange() async throws {
        try await Self.run { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let (reply, signed) = try await Self.exchange(api, &app)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.headers[.cacheControl] == "no-store")
            #expect(reply["expiresIn"] as? Int == 300)
            let token = try #require(reply["token"] as? String)

            let jwks = try await api.send(.get, "/v1/session-tokens/jwks", apiKey: nil)
            #expect(jwks.status == 200, "\(jwks.text)")
            #expect(jwks.headers[.cacheControl] == "public, max-age=300")
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.text)
            let claims = try await keys.verify(token, as: SessionTokenClaims.self)
            #expect(claims.aud.value == [ServerHarness.appId])
            #expect(claims.sub.value == Base64Text.urlEncoded(app.key.keyId))
            #expect(claims.env == "development" && claims.dec == "allow")
            #expect(claims.exp.value == api.clock.now().addingTimeInterval(300))
            #expect(!token.contains("alice"), "the user travels as its keyed hash only")

            let replay = try await Self.exchange(api, &app, signed: signed).0
            #expect(replay.status == 409 && replay.errorCode == "assertion_already_accepted", "\(replay.text)")
        }
    }

    @Test("no assertion, another body than the signed one, and a denied verdict get no token")
    func refusals() async throws {
        try await Self.run { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            var headers = AppFacingRouteTests.gatewayHeaders(user: "alice", target: Self.path)
            headers[.contentType] = nil
            let bare = try await api.send(.post, "/v1/app/session-tokens", apiKey: nil, headers: headers)
            #expect(bare.status == 401 && bare.errorCode == "assertion_missing", "\(bare.text)")

            let (changed, _) = try await Self.exchange(api, &app, signedBody: Data("{}".utf8), sentBody: Data(#"{"a":1}"#.utf8))
            #expect(changed.status == 422 && changed.errorCode == "request_binding_mismatch", "\(changed.text)")

            var mallory = SimulatedApps.make(user: "mallory", device: "mallory-phone")
            #expect(try await api.attest(mallory).status == 201)
            let (denied, _) = try await Self.exchange(api, &mallory)
            #expect(denied.status == 403 && denied.errorCode == "request_denied", "\(denied.text)")
        }
    }

    @Test("an app that issues no tokens refuses before the assertion is spent; without a signing key there is no JWKS")
    func notEnabled() async throws {
        try await Self.run(environment: [:]) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let (reply, _) = try await Self.exchange(api, &app)
            #expect(reply.status == 404 && reply.errorCode == "session_tokens_not_enabled", "\(reply.text)")
            #expect(try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId))?.counter == 0)
            let jwks = try await api.send(.get, "/v1/session-tokens/jwks", apiKey: nil)
            #expect(jwks.status == 404 && jwks.errorCode == "session_tokens_not_enabled", "\(jwks.text)")
        }
    }
}
