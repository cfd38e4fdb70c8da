import AttestTestSupport
import Foundation
import GatewayPolicy
import Testing

/// Seeded hostile request-targets through the shipped nginx (njs) and Caddy configurations to a recording upstream:
/// whatever reaches the upstream was let through under a protection at least as strict as that of every path the
/// upstream may read from the target it received.
@Suite("Gateway: hostile targets", .serialized, .enabled(if: GatewayBinaries.nginxAvailable && GatewayBinaries.caddyAvailable, "nginx with njs or Caddy is not installed"))
struct HostileTargetGatewayTests {
    /// Bypasses found by probing: a scheme inside the path, dot segments plain and escaped, a network-path reference.
    static let known = [
        "/admin/x://h/api/catalog/z", "/admin/../api/catalog/z", "/api/promos/claim/%2e%2e/%2e%2e/%2e%2e/api/catalog/x",
        "/api/account/.%2e/.%2E/api/catalog/x", "//h/api/catalog/../../admin",
    ]

    @Test("the known bypasses and 300 seeded hostile GETs per gateway: nothing is served under a more open protection than its own path's")
    func hostileTargets() async throws {
        let policies = try GatewayPolicyLoader.load(directory: GatewayBinaries.shipped.appendingPathComponent("policy").path)
        try await GatewayStack.run { stack in
            let gateways = [("nginx", try await stack.startNginx().port), ("caddy", try await stack.startCaddy().port)]
            var served = 0
            for target in Self.known + HostileTargets.generate(count: 300, seed: 0x9a7e_3a1_5eed) {
                for (name, port) in gateways {
                    let before = stack.upstream.requests.count
                    _ = try await GatewayRequest(method: "GET", target: target, body: []).send(to: port)
                    for received in stack.upstream.requests.dropFirst(before) {
                        served += 1
                        let applied = received.header("X-AttestGuard-Protection").flatMap(RouteProtection.init(rawValue:)) ?? .open
                        for reading in HostileTargets.upstreamReadings(of: received.target) {
                            let own = try #require(try policies.decide(host: "shop.example", method: "GET", requestTarget: reading), "\(reading)")
                            #expect(own.protection.strictness <= applied.strictness, "\(name): \(target) reached the upstream as \(received.target) under \(applied); \(reading) is \(own.protection)")
                        }
                    }
                }
            }
            #expect(served > 50, "the targets reach open and scored routes too: \(served) served")
        }
    }
}
