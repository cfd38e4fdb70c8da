/// What the app passes to `attestKey` as `clientDataHash` for an attestation challenge: it must be what the app's
/// configuration on the server says (contract, "Challenges"), or the server refuses the attestation with
/// `nonce_mismatch`.
public enum AttestationHashConvention: String, Sendable, Hashable, CaseIterable {
    /// SHA-256 of the decoded challenge bytes (AttestGuard's default).
    case sha256
    /// The decoded challenge bytes themselves, as Apple's sample code does.
    case raw
}
