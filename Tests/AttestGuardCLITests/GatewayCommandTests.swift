import Foundation
import Testing

/// `attestguard gateway check|explain` on the shipped example and on a broken copy, as an operator runs them.
struct GatewayCommandTests {
    static let policies = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Gateway/policy").path

    @Test("check lists each app's routes and exits 0; a broken file exits 1 with its problems at their lines")
    func check() async throws {
        let clean = try await CommandLineRunner.run(["gateway", "check", Self.policies])
        #expect(clean.status == 0, "\(clean.standardError)")
        #expect(clean.standardOutput.contains("POST /api/promos/claim: require action claim_promo, review refuse"), "\(clean.standardOutput)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "version: 1\napp: ABCDE12345.com.example.shop\nroutes:\n  - { path: /x, protection: sometimes }\n"
            .write(to: folder.appendingPathComponent("shop.yaml"), atomically: true, encoding: .utf8)
        let broken = try await CommandLineRunner.run(["gateway", "check", folder.path])
        #expect(broken.status == 1)
        #expect(broken.standardOutput.isEmpty)
        #expect(broken.standardError.contains("shop.yaml:4:"), "\(broken.standardError)")
        #expect(broken.standardError.contains("invalid_field"), "\(broken.standardError)")
    }

    @Test("explain names the app, the protection and the route for any spelling of a path; no owner exits 1")
    func explain() async throws {
        let claim = try await CommandLineRunner.run([
            "gateway", "explain", Self.policies, "--host", "shop.example", "--method", "post", "--target", "/API//promos/%63laim/",
        ])
        #expect(claim.status == 0, "\(claim.standardError)")
        #expect(claim.standardOutput.contains("-> path /api/promos/claim"))
        #expect(claim.standardOutput.contains("require, action claim_promo, review refuse"), "\(claim.standardOutput)")
        let stranger = try await CommandLineRunner.run(["gateway", "explain", Self.policies, "--host", "evil.example", "--target", "/api/orders"])
        #expect(stranger.status == 1)
        #expect(stranger.standardOutput.contains("no app owns"))
        // A target whose normalised path the upstream may not serve: refused, exit 1, with the reason.
        let bypass = try await CommandLineRunner.run(["gateway", "explain", Self.policies, "--host", "shop.example", "--target", "/admin/x://h/api/catalog/z"])
        #expect(bypass.status == 1)
        #expect(bypass.standardOutput.contains("request_target_refused") && bypass.standardOutput.contains("://"), "\(bypass.standardOutput)")
    }
}
