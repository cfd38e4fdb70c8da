import AttestTestSupport
import Foundation
import Testing

/// `attestguard debug-tokens create|list|revoke` on the configured store: the secret printed once, listings without
/// it, revocation by id, and an app that accepts no debug tokens refused before the store is opened.
@Suite("attestguard debug-tokens")
struct DebugTokenCommandTests {
    static let app = "ABCDE12345.com.example.attestguard"

    @Test("create prints the secret once; list shows the token without it; revoke marks it; unknown ids and apps are refused")
    func lifecycle() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("debug-tokens-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        environment["ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED"] = "true"
        #expect(try await CommandLineRunner.run(["migrate"], environment: environment).status == 0)

        let created = try await CommandLineRunner.run(["debug-tokens", "create", "--app", Self.app, "--name", "ci-runner", "--days", "2", "--json"], environment: environment)
        try #require(created.status == 0, "\(created.standardError)")
        let secret = try #require(created.json["secret"] as? String)
        let token = try #require(created.json["token"] as? [String: Any])
        let id = try #require(token["id"] as? String)
        #expect(secret.hasPrefix("agdt_"))
        #expect(token["createdBy"] as? String == "cli" && token["state"] as? String == "active")

        let text = try await CommandLineRunner.run(["debug-tokens", "create", "--app", Self.app, "--name", "alice"], environment: environment)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("secret (shown once") && text.standardOutput.contains("alice"))

        let listed = try await CommandLineRunner.run(["debug-tokens", "list", "--app", Self.app], environment: environment)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains(id) && listed.standardOutput.contains("ci-runner") && !listed.standardOutput.contains(secret))
        #expect(listed.standardOutput.split(separator: "\n").count == 2)

        let revoked = try await CommandLineRunner.run(["debug-tokens", "revoke", "--app", Self.app, "--id", id, "--json"], environment: environment)
        #expect(revoked.status == 0, "\(revoked.standardError)")
        #expect(revoked.json["state"] as? String == "revoked")

        let unknown = try await CommandLineRunner.run(["debug-tokens", "revoke", "--app", Self.app, "--id", "dbg_AAAAAAAAAAAA"], environment: environment)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no debug token"))
        let tooLong = try await CommandLineRunner.run(["debug-tokens", "create", "--app", Self.app, "--name", "x", "--days", "31"], environment: environment)
        #expect(tooLong.status == 2, "\(tooLong.standardError)")

        environment["ATTESTGUARD_APPS_MAIN_DEBUG_TOKENS_ENABLED"] = "false"
        let refused = try await CommandLineRunner.run(["debug-tokens", "list", "--app", Self.app], environment: environment)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("accepts no debug tokens"))
    }
}
