public import Crypto
public import AppleReceipts

/// An attestation that passed all nine checks and whose ATTEST receipt verified.
public struct VerifiedAttestation: Sendable {
    /// The key id (SHA-256 of the public key).
    public let keyId: [UInt8]
    /// The attested P-256 public key.
    public let publicKey: P256.Signing.PublicKey
    /// The environment the aaguid names.
    public let environment: AppAttestEnvironment
    /// The clientDataHash the nonce was computed with.
    public let clientDataHash: [UInt8]
    /// The raw ATTEST receipt, to store with the key for later refreshes.
    public let receiptBytes: [UInt8]
    /// The decoded, verified ATTEST receipt.
    public let receipt: Receipt
    /// The authenticator data header (flags, counter).
    public let authenticatorData: AuthenticatorData
    /// The attested credential data (aaguid, credential id, COSE key, trailing data).
    public let credential: AttestedCredentialData
    /// The leaf's informational Apple extensions (OS version, app info).
    public let certificateInformation: CertificateInformation
    /// The x5c certificates (DER), leaf first.
    public let certificates: [[UInt8]]

    /// The public key as an uncompressed X9.62 point.
    public var publicKeyX963: [UInt8] { Array(publicKey.x963Representation) }
}

/// The outcome of verifying an attestation: the verified key, or the first check that failed.
public enum AttestationVerdict: Sendable {
    case valid(VerifiedAttestation)
    case invalid(VerificationError)

    /// The verified attestation when valid.
    public var attestation: VerifiedAttestation? {
        if case .valid(let attestation) = self { return attestation }
        return nil
    }

    /// The failure when invalid.
    public var error: VerificationError? {
        if case .invalid(let error) = self { return error }
        return nil
    }

    /// The verified attestation, or the failure thrown.
    public func get() throws(VerificationError) -> VerifiedAttestation {
        switch self {
        case .valid(let attestation): return attestation
        case .invalid(let error): throw error
        }
    }
}
