import AttestGuardRuntime
import DeviceSimulator

extension SimulatorTrustRoots {
    /// The roots of the device simulator's test PKI for a seed: what `serve` trusts in simulator mode, and what
    /// `simulate apple` and the simulated devices sign under when given the same seed.
    static let deviceSimulator: Maker = { seed in
        let pki = try SimulatedApplePKI(seed: seed)
        return SimulatorTrustRoots(attestationRoots: pki.attestationTrustRoots, receiptRoots: pki.receiptTrustRoots)
    }
}
