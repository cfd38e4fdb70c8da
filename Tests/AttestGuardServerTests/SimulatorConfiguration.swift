import AttestGuardRuntime
import AttestGuardServer
import Foundation
import DeviceSimulator

extension SimulatorTrustRoots {
    /// The device simulator's roots for a seed, as the CLI makes them (the server does not link the simulator).
    static let deviceSimulator: Maker = { seed in
        let pki = try SimulatedApplePKI(seed: seed)
        return SimulatorTrustRoots(attestationRoots: pki.attestationTrustRoots, receiptRoots: pki.receiptTrustRoots)
    }
}

extension ServerHarness {
    /// Runs `body` against a server whose rule set is the one rule file `yaml` (in a folder removed afterwards).
    static func run(
        _ backend: ServerBackend,
        rules yaml: String,
        _ body: @escaping @Sendable (APIClient) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try yaml.write(to: folder.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        try await run(backend, extraEnvironment: ["ATTESTGUARD_RULES_DIRECTORY": folder.path], body)
    }
}

extension ServerConfigurationLoader {
    /// Loads a configuration the way `attestguard serve` does: simulator mode trusts the device simulator's roots.
    static func load(file: String?, environment: [String: String]) async throws -> ServerConfiguration {
        try await load(file: file, environment: environment, simulatorRoots: SimulatorTrustRoots.deviceSimulator)
    }
}
