public import X509

/// The certificates simulator mode trusts in place of Apple's roots, made from the configured `simulator.seed`.
///
/// The server does not link the simulator: the program that runs it (the CLI, a test) builds these from the
/// device simulator's test PKI and hands ``ServerConfigurationLoader/load(file:environment:simulatorRoots:)`` a
/// ``Maker``, which is called only when the configuration selects simulator mode.
public struct SimulatorTrustRoots: Sendable {
    /// Makes the roots of the test PKI that a seed generates.
    public typealias Maker = @Sendable (_ seed: String) throws -> SimulatorTrustRoots

    /// Roots for attestation certificate chains (the App Attestation root's stand-in).
    public var attestationRoots: [Certificate]
    /// Roots for receipt signatures (Apple Root CA - G3's stand-in).
    public var receiptRoots: [Certificate]

    public init(attestationRoots: [Certificate], receiptRoots: [Certificate]) {
        self.attestationRoots = attestationRoots
        self.receiptRoots = receiptRoots
    }
}
