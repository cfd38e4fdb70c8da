import AttestCore
import AttestGuardClient
import Crypto
import Foundation
import Testing

/// The shipped Caddyfile in front of an upstream, with `attestguard serve` behind it. Caddy cannot hash the body:
/// method and request-target are bound, and the upstream gets the signed body hash to check.
@Suite("Gateway: Caddy", .serialized, .enabled(if: GatewayBinaries.caddyAvailable, "caddy is not installed"))
struct CaddyGatewayTests {
    @Test("an honest request reaches the upstream with the verdict and the signed body hash; replays and re-claims do not")
    func honestReplayedReclaimed() async throws {
        try await GatewayStack.run { stack in
            let caddy = try await stack.startCaddy()
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            let claim = try await stack.sign(GatewayRequest(target: "/api/promos/claim?ref=mail"), by: &app)
            let answer = try await claim.send(to: caddy.port)
            #expect(answer.status == 200, "\(answer.text)")
            let received = try #require(stack.received("/api/promos/claim?ref=mail").first)
            #expect(received.body == claim.body)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            #expect(received.header("X-AttestGuard-Key-Id") == app.key.keyIdBase64)
            #expect(received.header("X-AttestGuard-Binding") == "v1_without_body")
            #expect(received.header("X-AttestGuard-Body-Sha256") == Base64Text.urlEncoded(SHA256.hash(data: received.body)))
            #expect(received.header("X-AttestGuard-User") == nil)

            let replayed = try await claim.send(to: caddy.port)
            #expect(replayed.status == 409, "\(replayed.text)")
            #expect(replayed.errorCode == "assertion_already_accepted")

            try await stack.markPromotionClaimed(device: "alice-phone")
            var reinstalled = stack.app(user: "alice", device: "alice-phone", keyIndex: 1)
            try await stack.attest(reinstalled)
            let again = try await stack.sign(GatewayRequest(target: "/api/promos/claim?ref=again"), by: &reinstalled).send(to: caddy.port)
            #expect(again.status == 403, "\(again.text)")
            #expect(again.errorCode == "request_denied")
            #expect(stack.upstream.requests.count == 1, "\(stack.upstream.requests.map(\.target))")
        }
    }

    @Test("a body changed after signing passes Caddy, and the signed hash tells the upstream")
    func changedBodyIsTheUpstreamsToCheck() async throws {
        try await GatewayStack.run { stack in
            let caddy = try await stack.startCaddy()
            var app = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(app)
            var changed = try await stack.sign(GatewayRequest(target: "/api/orders/1/cancel"), by: &app)
            changed.body = Array(#"{"item":"sku-1","quantity":100}"#.utf8)
            #expect(try await changed.send(to: caddy.port).status == 200)
            let received = try #require(stack.received("/api/orders/1/cancel").first)
            #expect(received.header("X-AttestGuard-Body-Sha256") != Base64Text.urlEncoded(SHA256.hash(data: received.body)))
        }
    }

    @Test("the client's copies of trusted and verdict headers reach neither AttestGuard nor the upstream; path spellings do not escape")
    func forgeriesAndSpellings() async throws {
        try await GatewayStack.run { stack in
            let caddy = try await stack.startCaddy()
            var alice = stack.app(user: "alice", device: "alice-phone")
            try await stack.attest(alice)
            var forged = try await stack.sign(GatewayRequest(target: "/api/orders/1/cancel"), by: &alice)
            forged.extraHeaders = [
                ("X-AttestGuard-User", "mallory"), ("X-AttestGuard-Client-IP", "198.51.100.1"), ("X-AttestGuard-Decision", "forged"),
                ("X-AttestGuard-Anything", "1"), ("X-Original-URI", "/api/catalog/x"), ("X-Original-Method", "GET"),
                ("X-AttestGuard-Body-Sha256", Base64Text.urlEncoded(SHA256.hash(data: forged.body))),
            ]
            let passed = try await forged.send(to: caddy.port)
            #expect(passed.status == 200, "\(passed.text)")
            let received = try #require(stack.received("/api/orders/1/cancel").first)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            #expect(received.header("X-AttestGuard-User") == nil && received.header("X-AttestGuard-Client-IP") == nil)
            #expect(received.header("X-AttestGuard-Anything") == nil && received.header("X-Original-URI") == nil)
            // The client's body hash never reached AttestGuard: the binding stays without the body.
            #expect(received.header("X-AttestGuard-Binding") == "v1_without_body")

            let unsigned = GatewayRequest(target: "/api/promos/claim", extraHeaders: [("X-Forwarded-Uri", "/api/catalog/x"), ("X-AttestGuard-Decision", "allow")])
            let refused = try await unsigned.send(to: caddy.port)
            #expect(refused.status == 401)
            #expect(refused.errorCode == "assertion_missing")

            for spelling in ["/api//promos/claim", "/api/promos/claim/", "/api/pr%6Fmos/claim", "/API/promos/claim",
                             "/api/catalog/..;/promos/claim", "/api/catalog/..%2Fpromos%2Fclaim"] {
                let answer = try await GatewayRequest(target: spelling).send(to: caddy.port)
                #expect(answer.status == 401, "\(spelling): \(answer.status) \(answer.text)")
            }
            // Spellings whose normalised path the upstream (given the target as sent) may not serve are refused.
            for spelling in ["//api/promos/claim", "/api/./promos/claim", "/api/catalog/../promos/claim", "/api/catalog/%2e%2e/promos/claim",
                             "/admin/x://h/api/catalog/z"] {
                let answer = try await GatewayRequest(target: spelling).send(to: caddy.port)
                #expect(answer.status == 400, "\(spelling): \(answer.status) \(answer.text)")
            }
            #expect(stack.upstream.requests.count == 1, "\(stack.upstream.requests.map(\.target))")
        }
    }

    @Test("the app client attests and signs through Caddy's app-facing routes; nothing else under /attestguard/ reaches AttestGuard")
    func clientThroughCaddy() async throws {
        try await GatewayStack.run { stack in
            let caddy = try await stack.startCaddy()
            let phone = stack.device("dave-phone")
            let dave = stack.client(user: "dave", provider: phone, keychainService: "caddy-\(UUID().uuidString)", port: caddy.port)
            #expect(try await dave.attestationRequired())
            let target = "/api/orders/caf%C3%A9/cancel?note=50%25%20off"
            let (_, answer) = try await dave.send(GatewayStack.appRequest("POST", target, body: #"{"item":"sku-2"}"#, user: "dave", port: caddy.port))
            #expect(answer.statusCode == 200)
            let received = try #require(stack.received(target).first)
            #expect(received.header("X-AttestGuard-Decision") == "allow")
            #expect(received.header("X-AttestGuard-Key-Id") == (await phone.keyIds.first))
            #expect(await phone.calls[.attestKey] == 1)
            let (_, spoofed) = try await dave.send(GatewayStack.appRequest("POST", "/api/spoof/1", body: "{}", user: "dave", port: caddy.port))
            #expect(spoofed.statusCode == 409 && spoofed.value(forHTTPHeaderField: "X-AttestGuard-Error") == nil)
            #expect(stack.received("/api/spoof/1").count == 1)
            let reported = try await stack.appRoute("POST", "/attestguard/attestation-outcomes", ["outcome": "attested"], user: "dave", port: caddy.port)
            #expect(reported.status == 204, "\(reported.text)")
            #expect(try await stack.appRoute("GET", "/attestguard/other", user: "dave", port: caddy.port).status != 200)
            #expect(try await stack.appRoute("GET", "/attestguard/challenges/x", user: "dave", port: caddy.port).status != 200)
        }
    }
}
