import AttestGuardEngine
import AttestGuardRuntime
import Foundation
import Testing

/// How `serve` reads a webhook receiver's secret: one `whsec_` secret, or during a rotation several, one a line in the
/// file (or separated by spaces in the variable); anything else is refused by name.
@Suite("Configuration: webhook receivers' secrets")
struct WebhookConfigurationTests {
    static func secret(_ byte: UInt8) -> String { "whsec_" + Data(repeating: byte, count: 32).base64EncodedString() }

    static func load(secretFileText: String) async throws -> ServerConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-webhook-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("support.secret")
        try secretFileText.write(to: secretFile, atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("attestguard.yaml")
        try """
            mode: simulator
            webhooks:
              names: [support]
              support: { url: "https://support.example.com/hooks", secretFile: \(secretFile.path) }
            """.write(to: file, atomically: true, encoding: .utf8)
        return try await ServerConfigurationLoader.load(file: file.path, environment: [:])
    }

    @Test("one secret, or the new and the old one a line each during a rotation, in the file's order")
    func rotationReadsEverySecret() async throws {
        let one = try await Self.load(secretFileText: Self.secret(1) + "\n")
        #expect(one.engine.webhooks.map(\.secrets) == [[WebhookSecret(text: Self.secret(1))!]])
        let rotating = try await Self.load(secretFileText: "\(Self.secret(2))\n\(Self.secret(1))\n")
        #expect(rotating.engine.webhooks.first?.secrets.map(\.key) == [Data(repeating: 2, count: 32), Data(repeating: 1, count: 32)])
    }

    @Test("by an environment variable, the secrets are separated by spaces")
    func rotationByEnvironment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-webhook-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("attestguard.yaml")
        try """
            mode: simulator
            webhooks: { names: [support], support: { url: "https://support.example.com/hooks", secretEnv: SUPPORT_WEBHOOK_SECRETS } }
            """.write(to: file, atomically: true, encoding: .utf8)
        let configuration = try await ServerConfigurationLoader.load(
            file: file.path, environment: ["SUPPORT_WEBHOOK_SECRETS": "\(Self.secret(3)) \(Self.secret(4))"]
        )
        #expect(configuration.engine.webhooks.first?.secrets.map(\.key) == [Data(repeating: 3, count: 32), Data(repeating: 4, count: 32)])
    }

    @Test("no secret, a bad one beside a good one, or more than four are refused, naming the key", arguments: [
        "\n", "\(secret(1))\nwhsec_c2hvcnQ=\n", (1...5).map { secret(UInt8($0)) }.joined(separator: "\n"),
    ])
    func badSecretsRefused(text: String) async throws {
        do {
            _ = try await Self.load(secretFileText: text)
            Issue.record("\(text.debugDescription) was read")
        } catch {
            #expect(String(describing: error).contains("webhooks.support.secretFile"), "\(error)")
        }
    }
}
