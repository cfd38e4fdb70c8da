import AttestCore
import AttestTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// What an app sees behind each shipped gateway when its assertion fails, and what both gateways do when AttestGuard
/// is down or slow.
@Suite(
    "Gateway: failures behind nginx and Caddy", .serialized,
    .enabled(if: GatewayBinaries.nginxAvailable && GatewayBinaries.caddyAvailable, "nginx with njs or caddy is not installed")
)
struct GatewayFailureTests {
    @Test("an expired challenge, an unknown key and a revoked key give the contract's status and code behind both gateways")
    func credentialFailures() async throws {
        // Challenges live 10 s (the shortest allowed) with no clock-skew allowance, so that one expires in a test.
        try await GatewayStack.run(challengeSeconds: 10) { stack in
            let gateways = [("nginx", try await stack.startNginx()), ("caddy", try await stack.startCaddy())]
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            var late: [GatewayRequest] = []
            for _ in gateways { late.append(try await stack.sign(GatewayRequest(target: "/api/orders/1/cancel"), by: &app)) }
            try await Task.sleep(for: .seconds(11))
            for ((name, gateway), request) in zip(gateways, late) {
                let expired = try await request.send(to: gateway.port)
                #expect(expired.status == 422, "\(name): \(expired.text)")
                #expect(expired.errorCode == "challenge_expired", "\(name)")
            }

            var stranger = stack.app(user: "alice", device: "alice-tablet")
            for (name, gateway) in gateways {
                let unknown = try await stack.sign(GatewayRequest(target: "/api/orders/2/cancel"), by: &stranger).send(to: gateway.port)
                #expect(unknown.status == 404, "\(name): \(unknown.text)")
                #expect(unknown.errorCode == "key_not_found", "\(name)")
                #expect(unknown.header("WWW-Authenticate") == #"AppAttest error="key_not_found""#, "\(name)")
            }

            let revoke = try await stack.attestGuard.send("POST", "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))/revoke")
            try #require(revoke.status == 200)
            for (name, gateway) in gateways {
                let revoked = try await stack.sign(GatewayRequest(target: "/api/orders/3/cancel"), by: &app).send(to: gateway.port)
                #expect(revoked.status == 422, "\(name): \(revoked.text)")
                #expect(revoked.errorCode == "key_revoked", "\(name)")
            }
            #expect(stack.upstream.requests.isEmpty, "\(stack.upstream.requests.map(\.target))")
        }
    }

    @Test(
        "the store down: AttestGuard's 503 store_unavailable reaches the app behind both gateways, closed in either mode",
        .enabled(if: TestPostgres.isEnabled, "PostgreSQL is not configured")
    )
    func storeDown() async throws {
        try await GatewayStack.run(cuttableStore: true) { stack in
            let gateways = [
                ("nginx", try await stack.startNginx(failureMode: .open)), ("nginx auth_request", try await stack.startNginx(.authRequest, failureMode: .open)),
                ("caddy", try await stack.startCaddy(failureMode: .open)),
            ]
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            var signed: [GatewayRequest] = []
            for (index, _) in gateways.enumerated() {
                signed.append(try await stack.sign(GatewayRequest(target: "/api/orders/\(index)/cancel"), by: &app))
            }
            stack.storeLink?.cutNow()
            for ((name, gateway), request) in zip(gateways, signed) {
                let down = try await request.send(to: gateway.port)
                #expect(down.status == 503, "\(name): \(down.text)")
                #expect(down.errorCode == "store_unavailable", "\(name)")
                #expect(down.header("Retry-After") != nil, "\(name)")
            }
            #expect(stack.upstream.requests.isEmpty, "\(stack.upstream.requests.map(\.target))")
        }
    }

    @Test("AttestGuard stopped or silent: fail-closed refuses with 503, fail-open passes marked unavailable")
    func attestGuardUnavailable() async throws {
        try await GatewayStack.run { stack in
            let silent = try SilentListener()
            // Bound and never listening for the whole test: connections are refused, and no other process takes it.
            let (reserved, stopped) = try LoopbackListener.reserve()
            defer { _ = Glibc.close(reserved) }
            for (down, port) in [("stopped", stopped), ("silent", silent.port)] {
                // The shipped 2 s read timeouts: what "silent" means is theirs to say.
                let closed = [
                    ("nginx", try await stack.startNginx(attestGuardPort: port, shippedTimeouts: true)),
                    ("caddy", try await stack.startCaddy(attestGuardPort: port, shippedTimeouts: true)),
                ]
                for (name, gateway) in closed {
                    let refused = try await GatewayRequest(target: "/api/orders/1/cancel?\(down)-closed").send(to: gateway.port)
                    #expect(refused.status == 503, "\(name), \(down): \(refused.text)")
                    #expect(refused.header("Retry-After") != nil, "\(name), \(down)")
                }
                let open = [
                    ("nginx", try await stack.startNginx(failureMode: .open, attestGuardPort: port, shippedTimeouts: true)),
                    ("caddy", try await stack.startCaddy(failureMode: .open, attestGuardPort: port, shippedTimeouts: true)),
                ]
                for (name, gateway) in open {
                    let target = "/api/orders/1/cancel?\(down)-open-\(name)"
                    let passed = try await GatewayRequest(target: target).send(to: gateway.port)
                    #expect(passed.status == 200, "\(name), \(down): \(passed.text)")
                    #expect(stack.received(target).first?.header("X-AttestGuard-Decision") == "unavailable", "\(name), \(down)")
                }
            }
            #expect(stack.upstream.requests.allSatisfy { $0.target.contains("-open-") })
        }
    }

    @Test("an upstream location's error_page sends the request back through the gateway without a second forward-auth")
    func errorPageConsumesOnce() async throws {
        try await GatewayStack.run { stack in
            // The operator's own fallback: an upstream 404 is retried at /fallback (an internal redirect into `location /`).
            let nginx = try await stack.startNginx(upstreamExtra: "proxy_intercept_errors on;\n        error_page 404 = /fallback;")
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            let answer = try await stack.sign(GatewayRequest(target: "/missing/claim"), by: &app).send(to: nginx.port)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(stack.upstream.requests.map(\.target) == ["/missing/claim", "/fallback"])
            let key = try await stack.attestGuard.send("GET", "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))")
            #expect(key.json["counter"] as? Int == 1, "one assertion committed: \(key.json)")
        }
    }
}

/// A loopback port that accepts connections (the kernel's backlog) and never answers: AttestGuard hung.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try LoopbackListener.open()
    }

    deinit { _ = Glibc.close(descriptor) }
}
