/// What a ``SimulatedDevice`` produced for one `attestKey` call.
public struct SimulatedAttestation: Sendable {
    /// The CBOR attestation object the app would send.
    public let object: [UInt8]
    /// The credential certificate (x5c[0]) in DER.
    public let credentialCertificate: [UInt8]
    /// The embedded ATTEST receipt.
    public let receipt: [UInt8]
    /// The receipt token (field 5), stable across refreshes.
    public let token: String
}
