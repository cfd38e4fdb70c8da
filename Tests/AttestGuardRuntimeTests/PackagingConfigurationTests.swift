import AttestGuardRuntime
import Crypto
import Foundation
import AttestTestSupport
import Testing

/// `Packaging/attestguard.yaml`, the example configuration the systemd units and the container image start with,
/// loads in production mode as shipped: only its secrets folder is moved to a temporary one holding made-up secrets.
@Suite("Packaging: the example production configuration")
struct PackagingConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let secretsFolder = "/etc/attestguard/secrets/"

    @Test("loads in production mode, every secret a file in /etc/attestguard/secrets")
    func exampleLoads() async throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("Packaging/attestguard.yaml"), encoding: .utf8)
        // Every *File key outside comments, with its value.
        let fileKeys = text.split(separator: "\n").map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0] }
            .compactMap { line -> (key: String, value: String)? in
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0].hasSuffix("File") else { return nil }
                return (parts[0], parts[1])
            }
        #expect(fileKeys.map(\.key).sorted() == ["hashKeyFile", "passwordFile", "privateKeyFile", "secretFile", "secretFile"])
        for (key, value) in fileKeys {
            #expect(value.hasPrefix(Self.secretsFolder), "\(key) names \(value), outside \(Self.secretsFolder)")
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-packaging-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (key, value) in fileKeys {
            let secret = key == "privateKeyFile" ? P256.Signing.PrivateKey().pemRepresentation : "made-up-secret-\(UUID().uuidString)"
            let name = String(value.dropFirst(Self.secretsFolder.count))
            try secret.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let moved = folder.appendingPathComponent("attestguard.yaml").path
        try text.replacingOccurrences(of: Self.secretsFolder, with: folder.path + "/").write(toFile: moved, atomically: true, encoding: .utf8)

        let configuration = try await ServerConfigurationLoader.load(file: moved, environment: [:])
        #expect(configuration.mode == .production)
        #expect(configuration.rulesDirectory == "/etc/attestguard/rules")
        #expect(configuration.apple.credentials != nil)
        #expect(configuration.apiKeys.map(\.name) == ["gateway", "operator"])
        #expect(!configuration.autoMigrate)
        guard case .postgres(let postgres) = configuration.database else {
            Issue.record("the example configures PostgreSQL")
            return
        }
        #expect(postgres.url.contains("made-up-secret-"), "the password comes from passwordFile")
    }
}
