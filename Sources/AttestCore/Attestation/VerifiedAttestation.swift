public import Crypto
public import AppleReceipts
public import AttestVocabulary

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
public typealias AttestationVerdict = Verdict<VerifiedAttestation, VerificationError>

extension Verdict where Value == VerifiedAttestation {
    /// The verified attestation when valid.
    public var attestation: VerifiedAttestation? { value }
}
