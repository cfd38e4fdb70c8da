import AttestCore
import AttestGuardWire
import Foundation
import Testing

/// Session tokens through the shipped nginx (njs) and Caddy configurations: the app exchanges an assertion for a token
/// at `/attestguard/session-tokens`, and a `token` route passes it with forward-auth's answer; a missing, forged,
/// other-user or revoked-key token is refused with its code and never reaches the upstream.
@Suite("Gateway: session tokens", .serialized, .enabled(if: GatewayBinaries.nginxAvailable, "nginx is not installed"))
struct TokenGatewayTests {
    enum Gateway: String, CaseIterable {
        case nginx
        case caddy
    }

    static var gateways: [Gateway] { [.nginx] + (GatewayBinaries.caddyAvailable ? [.caddy] : []) }

    @Test("a token route passes the exchanged token and refuses none, a forged one, another user's and a revoked key's",
          arguments: gateways)
    func tokenRoute(gateway: Gateway) async throws {
        try await GatewayStack.run(sessionTokens: true) { stack in
            let port = try await (gateway == .nginx ? stack.startNginx() : stack.startCaddy()).port
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attestThroughGateway(app, port: port)
            let exchange = try await stack.signThroughGateway(GatewayRequest(target: "/attestguard/session-tokens", body: []), by: &app, port: port)
            let issued = try await exchange.send(to: port)
            #expect(issued.status == 201, "\(issued.text)")
            let token = try #require((try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])?["token"] as? String)

            func feed(_ tag: String, user: String = "alice", token: String?) -> GatewayRequest {
                var request = GatewayRequest(method: "GET", target: "\(GatewayStack.tokenRoute)?\(tag)", body: [], user: user)
                if let token { request.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, token)] }
                return request
            }

            let passed = try await feed("valid", token: token).send(to: port)
            #expect(passed.status == 200, "\(passed.text)")
            let received = try #require(stack.received("\(GatewayStack.tokenRoute)?valid").first)
            #expect(received.header("X-AttestGuard-Binding") == "session_token")
            #expect(received.header("X-AttestGuard-Protection") == "token")
            #expect(received.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
            #expect(received.header("X-AttestGuard-Decision") == "allow")

            let missing = try await feed("missing", token: nil).send(to: port)
            #expect(missing.status == 401 && missing.errorCode == "session_token_missing", "\(missing.status) \(missing.text)")
            let forged = try await feed("forged", token: String(token.dropLast(4)) + "AAAA").send(to: port)
            #expect(forged.status == 401 && forged.errorCode == "session_token_invalid", "\(forged.status) \(forged.text)")
            let borrowed = try await feed("borrowed", user: "bob", token: token).send(to: port)
            #expect(borrowed.status == 422 && borrowed.errorCode == "key_user_mismatch", "\(borrowed.status) \(borrowed.text)")

            let revoke = try await stack.attestGuard.send("POST", "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))/revoke")
            #expect(revoke.status == 200)
            let revoked = try await feed("revoked", token: token).send(to: port)
            #expect(revoked.status == 422 && revoked.errorCode == "key_revoked", "\(revoked.status) \(revoked.text)")
            #expect(stack.upstream.requests.map(\.target) == ["\(GatewayStack.tokenRoute)?valid"])
        }
    }
}
