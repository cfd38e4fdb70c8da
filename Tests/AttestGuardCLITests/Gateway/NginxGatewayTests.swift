import AttestCore
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The shipped nginx configuration (njs) in front of an upstream, with `attestguard serve` behind it: what an app
/// and the upstream see.
@Suite("Gateway: nginx with njs", .serialized, .enabled(if: GatewayBinaries.nginxAvailable, "nginx with njs is not installed"))
struct NginxGatewayTests {
    @Test("an honest request reaches the upstream with the verdict headers and its exact body; a promo re-claim does not")
    func honestAndReclaimed() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            let claim = try await stack.sign(GatewayRequest(target: "/api/promos/claim?ref=mail"), by: &app)
            let answer = try await claim.send(to: nginx.port)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.text == "upstream ok")
            let received = try #require(stack.received("/api/promos/claim?ref=mail").first)
            #expect(received.method == "POST")
            #expect(received.body == claim.body)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            #expect(received.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
            #expect(received.header("X-AttestGuard-Binding") == "v1")
            #expect(received.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: claim.body)))
            #expect(received.header("X-AttestGuard-User") == nil && received.header("X-Original-URI") == nil)

            // The backend marks the device; the app is reinstalled (a new key on the same device) and claims again.
            try await stack.markPromotionClaimed(device: "alice-phone")
            var reinstalled = stack.app(user: "alice", device: "alice-phone", keyIndex: 1)
            try await stack.attest(reinstalled)
            let again = try await stack.sign(GatewayRequest(target: "/api/promos/claim?ref=again"), by: &reinstalled).send(to: nginx.port)
            #expect(again.status == 403, "\(again.text)")
            #expect(again.errorCode == "request_denied")
            #expect(stack.received("/api/promos/claim?ref=again").isEmpty)
        }
    }

    @Test("an app attests and signs through the gateway alone; a body naming another user is bound to the gateway's")
    func appFacingRoutes() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attestThroughGateway(app, port: nginx.port)
            let required = try await stack.appRoute("GET", "/attestguard/attestation-required", user: "alice", port: nginx.port)
            #expect(required.status == 200 && required.text == #"{"attest":true}"#, "\(required.text)")
            let validated = try await stack.appRoute("POST", "/attestguard/devicecheck", ["deviceToken": Data("alice-phone".utf8).base64EncodedString()], user: "alice", port: nginx.port)
            #expect(validated.status == 200 && validated.text.contains(#""valid":true"#), "\(validated.text)")
            let reported = try await stack.appRoute("POST", "/attestguard/attestation-outcomes", ["outcome": "failed", "errorCode": 4], user: "alice", port: nginx.port)
            #expect(reported.status == 204, "\(reported.text)")
            let signed = try await stack.signThroughGateway(GatewayRequest(target: "/api/promos/claim?via=gateway"), by: &app, port: nginx.port)
            #expect(try await signed.send(to: nginx.port).status == 200)
            #expect(stack.received("/api/promos/claim?via=gateway").count == 1)

            // Mallory asks for a challenge claiming alice in the body: it is bound to mallory, so alice's key cannot use it.
            let issued = try await stack.appRoute("POST", "/attestguard/challenges", ["purpose": "assertion", "userId": "alice"], user: "mallory", port: nginx.port)
            let challenge = try #require((try JSONSerialization.jsonObject(with: Data(issued.body)) as? [String: Any])?["challenge"] as? String)
            var stolen = GatewayRequest(target: "/api/promos/claim?via=stolen")
            stolen.assertion = app.assertion(challenge: challenge, method: "POST", path: stolen.target, body: Data(stolen.body))
            let refused = try await stolen.send(to: nginx.port)
            #expect(refused.status == 422, "\(refused.text)")
            #expect(stack.received("/api/promos/claim?via=stolen").isEmpty)
            // Nothing else under /attestguard/ reaches AttestGuard's routes.
            #expect(try await stack.appRoute("GET", "/attestguard/other", user: "alice", port: nginx.port).status == 401)
        }
    }

    @Test("bodies: empty, 1 KB, 64 KB and chunked pass byte-exact; a changed body is refused; a larger one is 413")
    func bodies() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            let limit = 64 * 1_024
            let cases: [(name: String, body: [UInt8], chunked: Bool)] = [
                ("empty", [], false), ("1k", Self.body(1_024), false), ("64k", Self.body(limit), false),
                ("chunked", Self.body(limit - 100), true), ("chunked-small", Self.body(3_000), true),
            ]
            for (index, item) in cases.enumerated() {
                let target = "/api/orders/\(index)/cancel"
                let signed = try await stack.sign(GatewayRequest(target: target, body: item.body, chunked: item.chunked), by: &app)
                let answer = try await signed.send(to: nginx.port)
                #expect(answer.status == 200, "\(item.name): \(answer.status) \(answer.text)")
                let received = stack.received(target)
                #expect(received.count == 1 && received.first?.body == item.body, "\(item.name): \(received.map(\.body.count)) bytes received")
            }

            var changed = try await stack.sign(GatewayRequest(target: "/api/orders/9/cancel", body: Self.body(1_024)), by: &app)
            changed.body[10] ^= 1
            let refused = try await changed.send(to: nginx.port)
            #expect(refused.status == 422)
            #expect(refused.errorCode == "request_binding_mismatch")

            for chunked in [false, true] {
                let large = try await stack.sign(GatewayRequest(target: "/api/orders/10/cancel", body: Self.body(limit + 1), chunked: chunked), by: &app)
                let tooLarge = try await large.send(to: nginx.port)
                #expect(tooLarge.status == 413, "chunked \(chunked): \(tooLarge.text)")
            }
            #expect(stack.received("/api/orders/9/cancel").isEmpty && stack.received("/api/orders/10/cancel").isEmpty)
        }
    }

    @Test("the client's copies of trusted and verdict headers reach neither AttestGuard nor the upstream; path spellings do not escape")
    func forgeriesAndSpellings() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            var alice = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(alice)
            // Alice's key sent with a forged user: AttestGuard binds the gateway's user (alice), so it passes, and the
            // upstream sees AttestGuard's verdict, not the client's.
            var forged = try await stack.sign(GatewayRequest(target: "/api/orders/1/cancel"), by: &alice)
            forged.extraHeaders = [
                ("X-AttestGuard-User", "mallory"), ("X-AttestGuard-Client-IP", "198.51.100.1"), ("X-AttestGuard-Decision", "forged"),
                ("X-AttestGuard-Body-Sha256", "forged"), ("X-Original-URI", "/api/catalog/x"), ("X-Forwarded-Uri", "/api/catalog/x"),
            ]
            let passed = try await forged.send(to: nginx.port)
            #expect(passed.status == 200, "\(passed.text)")
            let received = try #require(stack.received("/api/orders/1/cancel").first)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            #expect(received.header("X-AttestGuard-User") == nil && received.header("X-AttestGuard-Client-IP") == nil)
            #expect(received.header("X-Original-URI") == nil && received.header("X-Forwarded-Uri") == nil)
            #expect(received.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: forged.body)))

            // Without an assertion, a forged "open" URI or verdict does not let a required request through.
            let unsigned = GatewayRequest(target: "/api/promos/claim", extraHeaders: [("X-Original-URI", "/api/catalog/x"), ("X-AttestGuard-Decision", "allow")])
            let refused = try await unsigned.send(to: nginx.port)
            #expect(refused.status == 401)
            #expect(refused.errorCode == "assertion_missing")
            let unknown = try await GatewayRequest(target: "/api/catalog/x", extraHeaders: [("X-AttestGuard-Anything", "1")]).send(to: nginx.port)
            #expect(unknown.status == 400)

            for spelling in ["/api//promos/claim", "/api/promos/claim/", "/api/pr%6Fmos/claim", "/API/promos/claim",
                             "/api/catalog/..;/promos/claim", "/api/catalog/..%2Fpromos%2Fclaim"] {
                let answer = try await GatewayRequest(target: spelling).send(to: nginx.port)
                #expect(answer.status == 401, "\(spelling): \(answer.status) \(answer.text)")
                #expect(answer.errorCode == "assertion_missing", "\(spelling)")
            }
            // Spellings whose normalised path the upstream (given the target as sent) may not serve are refused.
            for spelling in ["//api/promos/claim", "/api/./promos/claim", "/api/catalog/../promos/claim", "/api/catalog/%2e%2e/promos/claim",
                             "/admin/x://h/api/catalog/z"] {
                let answer = try await GatewayRequest(target: spelling).send(to: nginx.port)
                #expect(answer.status == 400 || answer.status == 404, "\(spelling): \(answer.status) \(answer.text)")
            }
            #expect(stack.upstream.requests.count == 1, "\(stack.upstream.requests.map(\.target))")
        }
    }

    /// `count` bytes of a JSON string body.
    static func body(_ count: Int) -> [UInt8] {
        guard count >= 2 else { return Array(repeating: UInt8(ascii: " "), count: count) }
        return [UInt8(ascii: "\"")] + (0..<(count - 2)).map { UInt8(ascii: "a") + UInt8($0 % 26) } + [UInt8(ascii: "\"")]
    }
}

/// The shipped plain `auth_request` variant (no njs): method and request-target bound, the body left to the upstream.
@Suite("Gateway: nginx auth_request", .serialized, .enabled(if: GatewayBinaries.nginxAvailable, "nginx is not installed"))
struct NginxAuthRequestGatewayTests {
    @Test("an honest request passes unbound to its body; a replay gets the precise status and code; AttestGuard down is 503 or marked")
    func honestReplayedUnavailable() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx(.authRequest)
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            let claim = try await stack.sign(GatewayRequest(target: "/api/promos/claim?ref=mail"), by: &app)
            let answer = try await claim.send(to: nginx.port)
            #expect(answer.status == 200, "\(answer.text)")
            let received = try #require(stack.received("/api/promos/claim?ref=mail").first)
            #expect(received.body == claim.body)
            #expect(received.header("X-AttestGuard-Binding") == "v1_without_body")
            #expect(received.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: received.body)))

            let replayed = try await claim.send(to: nginx.port)
            #expect(replayed.status == 409, "\(replayed.text)")
            #expect(replayed.errorCode == "assertion_already_accepted")
            let missing = try await GatewayRequest(target: "/api/promos/claim").send(to: nginx.port)
            #expect(missing.status == 401 && missing.errorCode == "assertion_missing", "\(missing.text)")
            let validated = try await stack.appRoute("POST", "/attestguard/devicecheck", ["deviceToken": Data("alice-phone".utf8).base64EncodedString()], user: "alice", port: nginx.port)
            #expect(validated.status == 200 && validated.text.contains(#""valid":true"#), "\(validated.text)")
            let reported = try await stack.appRoute("POST", "/attestguard/attestation-outcomes", ["outcome": "failed", "errorCode": 4], user: "alice", port: nginx.port)
            #expect(reported.status == 204, "\(reported.text)")
            #expect(missing.header("WWW-Authenticate") == #"AppAttest error="assertion_missing""#)

            let (reserved, stopped) = try LoopbackListener.reserve()
            defer { _ = Glibc.close(reserved) }
            let closed = try await stack.startNginx(.authRequest, attestGuardPort: stopped)
            let refused = try await GatewayRequest(target: "/api/orders/1/cancel").send(to: closed.port)
            #expect(refused.status == 503 && refused.errorCode == "attestguard_unavailable", "\(refused.text)")
            let open = try await stack.startNginx(.authRequest, failureMode: .open, attestGuardPort: stopped)
            #expect(try await GatewayRequest(target: "/api/orders/2/cancel").send(to: open.port).status == 200)
            #expect(stack.received("/api/orders/2/cancel").first?.header("X-AttestGuard-Decision") == "unavailable")
            #expect(stack.upstream.requests.count == 2)
        }
    }
}
