import AttestGuardRuntime
import AttestGuardServer
import Foundation
import DeviceSimulator

extension ServerHarness {
    /// Runs `body` against a server whose rule set is the one rule file `yaml` (in a folder removed afterwards).
    static func run(
        _ backend: ServerBackend,
        extraEnvironment: [String: String] = [:],
        rules yaml: String,
        _ body: @escaping @Sendable (APIClient) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try yaml.write(to: folder.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        try await run(backend, extraEnvironment: extraEnvironment.merging(["ATTESTGUARD_RULES_DIRECTORY": folder.path]) { _, new in new }, body)
    }
}

