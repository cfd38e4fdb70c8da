import AttestCore
import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import AttestTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Session tokens through the shipped nginx (njs) and Caddy configurations: the app exchanges an assertion for a token
/// at `/attestguard/session-tokens`, and a `token` route passes it with forward-auth's answer; a missing, forged,
/// other-user or revoked-key token is refused with its code and never reaches the upstream. A debug token passes the
/// `require` and `token` routes of an app that accepts them until it is revoked, and no route of an app that does not.
@Suite("Gateway: session and debug tokens", .serialized, .enabled(if: GatewayBinaries.nginxAvailable, "nginx is not installed"))
struct TokenGatewayTests {
    enum Gateway: String, CaseIterable {
        case nginx
        case caddy
    }

    static var gateways: [Gateway] { [.nginx] + (GatewayBinaries.caddyAvailable ? [.caddy] : []) }

    /// How many forward-auth answers AttestGuard counted as a session token that passed.
    static func tokenPasses(_ stack: GatewayStack) async throws -> Int {
        let (data, _) = try await URLSession.shared.dataShieldedFromCancellation(from: stack.attestGuard.baseURL.appendingPathComponent("metrics"))
        let metrics = String(decoding: data, as: UTF8.self)
        var passes = 0
        for line in metrics.split(separator: "\n") where line.hasPrefix("attestguard_gateway_checks_total{") {
            guard line.contains(#"outcome="token""#), line.contains(#"result="passed""#), let value = line.split(separator: " ").last else { continue }
            passes += Int(Double(value) ?? 0)
        }
        return passes
    }

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

            var passedTargets: [String] = []
            func send(_ request: GatewayRequest) async throws -> GatewayAnswer {
                let answer = try await request.send(to: port)
                if answer.status == 200 { passedTargets.append(request.target) }
                return answer
            }

            let passed = try await send(feed("valid", token: token))
            let firstAnswered = ContinuousClock.now
            #expect(passed.status == 200, "\(passed.text)")
            let received = try #require(stack.received("\(GatewayStack.tokenRoute)?valid").first)
            #expect(received.header("X-AttestGuard-Binding") == "session_token")
            #expect(received.header("X-AttestGuard-Protection") == "token")
            #expect(received.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            // The same token on the same path (another query): nginx answers from the answer it kept, Caddy asks again.
            #expect(try await send(feed("again", token: token)).status == 200)
            // nginx keeps the answer for GatewayStack.tokenReuse; a machine too busy to send the next request within
            // most of it lets the kept answer lapse, and only then may nginx ask again.
            let reusable = ContinuousClock.now - firstAnswered < GatewayStack.tokenReuse - .seconds(1)
            let asked = try await Self.tokenPasses(stack)
            switch gateway {
            case .caddy: #expect(asked == 2, "Caddy asks AttestGuard every time")
            case .nginx where reusable && asked == 2:
                // nginx asked again although its kept answer was fresh: seen once, on a busy CI machine, with the
                // cause not shown (the kept answer not yet stored when the next request looked for it is one
                // candidate). A kept answer must then serve the next request: a gateway that never reuses one fails here.
                #expect(try await send(feed("again-kept", token: token)).status == 200)
                let askedAfter = try await Self.tokenPasses(stack)
                if ContinuousClock.now - firstAnswered < GatewayStack.tokenReuse - .seconds(1) {
                    #expect(askedAfter == 2, "nginx answers from the answer it kept")
                } else {
                    #expect((2...3).contains(askedAfter))
                }
            case .nginx where reusable: #expect(asked == 1, "nginx answers from the answer it kept")
            case .nginx: #expect((1...2).contains(asked))
            }
            #expect(stack.received("\(GatewayStack.tokenRoute)?again").first?.header("X-AttestGuard-Binding") == "session_token")

            let missing = try await send(feed("missing", token: nil))
            #expect(missing.status == 401 && missing.errorCode == "session_token_missing", "\(missing.status) \(missing.text)")
            let forged = try await send(feed("forged", token: Forgery.altered(token, last: 4)))
            #expect(forged.status == 401 && forged.errorCode == "session_token_invalid", "\(forged.status) \(forged.text)")
            let borrowed = try await send(feed("borrowed", user: "bob", token: token))
            #expect(borrowed.status == 422 && borrowed.errorCode == "key_user_mismatch", "\(borrowed.status) \(borrowed.text)")

            let revoke = try await stack.attestGuard.send("POST", "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))/revoke")
            #expect(revoke.status == 200)
            // AttestGuard refuses at once; nginx may answer from a kept answer for up to its max-age (tokenReuse).
            // The bound is wide for a busy machine; the refusal comes long before.
            let deadline = ContinuousClock.now + .seconds(30)
            var revoked = try await send(feed("revoked-0", token: token))
            var attempt = 0
            while revoked.status == 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                attempt += 1
                revoked = try await send(feed("revoked-\(attempt)", token: token))
            }
            #expect(revoked.status == 422 && revoked.errorCode == "key_revoked", "\(revoked.status) \(revoked.text)")
            if gateway == .caddy { #expect(attempt == 0, "Caddy asks AttestGuard every time") }
            #expect(stack.upstream.requests.map(\.target) == passedTargets, "only what the gateway passed reached the upstream")
        }
    }

    @Test("the client buys one token, carries it on the token route and an assertion where the route asks for one")
    func clientThroughNginx() async throws {
        try await GatewayStack.run(sessionTokens: true) { stack in
            let nginx = try await stack.startNginx()
            let phone = stack.device("alice-phone")
            let client = stack.client(
                user: "alice", provider: phone, keychainService: "tokens-\(UUID().uuidString)", port: nginx.port, sessionTokens: true
            )
            for page in 1...3 {
                let target = "\(GatewayStack.tokenRoute)?page=\(page)"
                #expect(try await client.send(GatewayStack.appRequest("GET", target, user: "alice", port: nginx.port)).1.statusCode == 200)
                #expect(stack.received(target).first?.header("X-AttestGuard-Binding") == "session_token", "\(target)")
            }
            // One assertion bought the token; the rollout advice attested the key first.
            #expect(await phone.calls[.attestKey] == 1)
            #expect(await phone.calls[.generateAssertion] == 1)

            // The promo route requires an assertion: the token is refused, the request signed, and the route remembered.
            for ref in ["a", "b"] {
                let target = "/api/promos/claim?ref=\(ref)"
                let (_, answer) = try await client.send(GatewayStack.appRequest("POST", target, body: #"{"item":"sku-1"}"#, user: "alice", port: nginx.port))
                #expect(answer.statusCode == 200, "\(target): \(answer.statusCode)")
                #expect(stack.received(target).allSatisfy { $0.header("X-AttestGuard-Binding") == "v1" })
            }
            #expect(await phone.calls[.generateAssertion] == 3)
        }
    }

    /// A new debug token of the stack's app: its secret and id.
    static func debugToken(_ stack: GatewayStack, name: String) async throws -> (secret: String, id: String) {
        let made = try await stack.attestGuard.send(
            "POST", "v1/admin/apps/\(GatewayStack.appId)/debug-tokens", body: Data(#"{"name":"\#(name)"}"#.utf8)
        )
        try #require(made.status == 201, "\(made.json)")
        let secret = try #require(made.json["secret"] as? String)
        return (secret, try #require((made.json["token"] as? [String: Any])?["id"] as? String))
    }

    @Test("a debug token passes the require and token routes of an app that accepts them, and stops at its revocation",
          arguments: gateways)
    func debugToken(gateway: Gateway) async throws {
        try await GatewayStack.run(sessionTokens: true, debugTokens: true) { stack in
            let port = try await (gateway == .nginx ? stack.startNginx() : stack.startCaddy()).port
            let (secret, id) = try await Self.debugToken(stack, name: "ci-runner")
            func carrying(_ token: String, _ method: String, _ target: String) -> GatewayRequest {
                var request = GatewayRequest(method: method, target: target, body: method == "GET" ? [] : Array(#"{"item":"sku-1"}"#.utf8))
                request.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, token)]
                return request
            }
            var passedTargets: [String] = []
            for (method, target) in [("POST", "/api/promos/claim?debug"), ("GET", "\(GatewayStack.tokenRoute)?debug")] {
                let answer = try await carrying(secret, method, target).send(to: port)
                #expect(answer.status == 200, "\(target): \(answer.status) \(answer.text)")
                passedTargets.append(target)
                let received = try #require(stack.received(target).first)
                #expect(received.header("X-AttestGuard-Binding") == "debug_token")
                #expect(received.header("X-AttestGuard-Key-Id") == nil)
                #expect(received.header("X-AttestGuard-Reasons") == "debug-token", "the shipped rules mark it")
            }
            let forged = try await carrying(Forgery.altered(secret, last: 2), "POST", "/api/promos/claim?forged").send(to: port)
            #expect(forged.status == 401 && forged.errorCode == "debug_token_invalid", "\(forged.status) \(forged.text)")

            let revoke = try await stack.attestGuard.send("POST", "v1/admin/apps/\(GatewayStack.appId)/debug-tokens/\(id)/revoke", body: Data("{}".utf8))
            #expect(revoke.status == 200)
            // Forward-auth reads the token on every use and marks its answers no-store: refused at once, nginx too.
            for (method, target) in [("POST", "/api/promos/claim?revoked"), ("GET", "\(GatewayStack.tokenRoute)?revoked")] {
                let answer = try await carrying(secret, method, target).send(to: port)
                #expect(answer.status == 401 && answer.errorCode == "debug_token_revoked", "\(target): \(answer.status) \(answer.text)")
            }
            #expect(stack.upstream.requests.map(\.target) == passedTargets, "only what the gateway passed reached the upstream")
        }
    }

    @Test("an app that accepts no debug tokens refuses one; the client on a device without App Attest carries one through nginx")
    func debugTokenAcceptance() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            var request = GatewayRequest(target: "/api/promos/claim?refused")
            request.extraHeaders = [(AppAttestHeader.sessionToken.rawValue, "agdt_" + String(repeating: "A", count: 43))]
            let refused = try await request.send(to: nginx.port)
            #expect(refused.status == 401 && refused.errorCode == "debug_tokens_not_enabled", "\(refused.status) \(refused.text)")
            #expect(stack.upstream.requests.isEmpty)
        }
        try await GatewayStack.run(debugTokens: true) { stack in
            let nginx = try await stack.startNginx()
            let (secret, _) = try await Self.debugToken(stack, name: "alice-simulator")
            let simulator = stack.device("alice-simulator", supported: false)
            let client = stack.client(
                user: "alice", provider: simulator, keychainService: "debug-\(UUID().uuidString)", port: nginx.port, debugToken: secret
            )
            for target in ["/api/promos/claim?ref=sim", "/api/orders"] {
                let (_, answer) = try await client.send(GatewayStack.appRequest("POST", target, body: #"{"item":"sku-1"}"#, user: "alice", port: nginx.port))
                #expect(answer.statusCode == 200, "\(target): \(answer.statusCode)")
                #expect(stack.received(target).first?.header("X-AttestGuard-Binding") == "debug_token", "\(target)")
            }
            #expect(await simulator.calls[.generateKey] == nil)
        }
    }
}
