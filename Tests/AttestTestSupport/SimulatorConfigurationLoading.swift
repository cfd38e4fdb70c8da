public import AttestGuardRuntime
import DeviceSimulator

extension SimulatorTrustRoots {
    /// The device simulator's roots for a seed, as the CLI makes them (the server and the runtime do not link the
    /// simulator).
    public static let deviceSimulator: Maker = { seed in
        let pki = try SimulatedApplePKI(seed: seed)
        return SimulatorTrustRoots(attestationRoots: pki.attestationTrustRoots, receiptRoots: pki.receiptTrustRoots)
    }
}

extension ServerConfigurationLoader {
    /// Loads a configuration the way `attestguard serve` does: simulator mode trusts the device simulator's roots.
    public static func load(file: String?, environment: [String: String]) async throws -> ServerConfiguration {
        try await load(file: file, environment: environment, simulatorRoots: SimulatorTrustRoots.deviceSimulator)
    }
}
