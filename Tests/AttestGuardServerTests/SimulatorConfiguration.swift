import AttestGuardServer
import DeviceSimulator

extension SimulatorTrustRoots {
    /// The device simulator's roots for a seed, as the CLI makes them (the server does not link the simulator).
    static let deviceSimulator: Maker = { seed in
        let pki = try SimulatedApplePKI(seed: seed)
        return SimulatorTrustRoots(attestationRoots: pki.attestationTrustRoots, receiptRoots: pki.receiptTrustRoots)
    }
}

extension ServerConfigurationLoader {
    /// Loads a configuration the way `attestguard serve` does: simulator mode trusts the device simulator's roots.
    static func load(file: String?, environment: [String: String]) async throws -> ServerConfiguration {
        try await load(file: file, environment: environment, simulatorRoots: SimulatorTrustRoots.deviceSimulator)
    }
}
