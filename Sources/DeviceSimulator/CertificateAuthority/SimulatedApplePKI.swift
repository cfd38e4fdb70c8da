public import Foundation
public import X509
import Crypto

/// A generated test PKI that mirrors Apple's two hierarchies:
///
/// - App Attest: "Simulated App Attestation Root CA" (P-384) -> "Simulated App Attestation CA 1" (P-384)
///   -> credential certificates (P-256, minted per key by ``SimulatedDevice``);
/// - receipts: "Simulated Apple Root CA - G3" (P-384) -> "Simulated Apple Application Integration CA 5 - G1"
///   (P-384) -> "Simulated Application Attestation Fraud Receipt Signing" (P-256).
///
/// Every key, serial and name is derived from the seed; the roots are what a verifier in simulator mode
/// trusts instead of Apple's.
public struct SimulatedApplePKI: Sendable {
    /// The seed-derived key material.
    public let keys: DeterministicKeys
    /// The App Attest root.
    public let attestationRoot: SimulatedCertificateAuthority
    /// The App Attest intermediate that signs credential certificates.
    public let attestationIntermediate: SimulatedCertificateAuthority
    /// The receipt root.
    public let receiptRoot: SimulatedCertificateAuthority
    /// The receipt intermediate.
    public let receiptIntermediate: SimulatedCertificateAuthority
    /// The receipt signing certificate and its P-256 key.
    public let receiptSigner: SimulatedCertificateAuthority
    /// The receipt signer's P-256 key, kept typed so minting a receipt signs without re-deriving it.
    let receiptSigningKey: P256.Signing.PrivateKey

    /// Creates the PKI from a seed; every certificate is valid from `validFrom` for `years` years.
    public init(seed: String = "attestguard-simulator", validFrom: Date = Date(timeIntervalSince1970: 1_577_836_800), years: Int = 30) throws {
        let keys = DeterministicKeys(seed: seed)
        let validity = validFrom...validFrom.addingTimeInterval(Double(years) * 365 * 86_400)
        self.keys = keys
        let attestationRoot = try SimulatedCertificateAuthority.root(
            subject: try DistinguishedName {
                CommonName("Simulated App Attestation Root CA")
                OrganizationName("AttestGuard Simulator")
                StateOrProvinceName("California")
            },
            key: keys.p384("attestation-root"),
            serialNumber: keys.serialNumber("attestation-root"),
            validity: validity
        )
        self.attestationRoot = attestationRoot
        self.attestationIntermediate = try attestationRoot.intermediate(
            subject: try DistinguishedName {
                CommonName("Simulated App Attestation CA 1")
                OrganizationName("AttestGuard Simulator")
                StateOrProvinceName("California")
            },
            key: Certificate.PrivateKey(keys.p384("attestation-intermediate")),
            serialNumber: keys.serialNumber("attestation-intermediate"),
            validity: validity
        )
        let receiptRoot = try SimulatedCertificateAuthority.root(
            subject: try DistinguishedName {
                CommonName("Simulated Apple Root CA - G3")
                OrganizationalUnitName("AttestGuard Simulator Certification Authority")
                OrganizationName("AttestGuard Simulator")
                CountryName("US")
            },
            key: keys.p384("receipt-root"),
            serialNumber: keys.serialNumber("receipt-root"),
            validity: validity
        )
        self.receiptRoot = receiptRoot
        let receiptIntermediate = try receiptRoot.intermediate(
            subject: try DistinguishedName {
                CommonName("Simulated Apple Application Integration CA 5 - G1")
                OrganizationalUnitName("AttestGuard Simulator Certification Authority")
                OrganizationName("AttestGuard Simulator")
                CountryName("US")
            },
            key: Certificate.PrivateKey(keys.p256("receipt-intermediate")),
            serialNumber: keys.serialNumber("receipt-intermediate"),
            validity: validity
        )
        self.receiptIntermediate = receiptIntermediate
        let signerKey = keys.p256("receipt-signer")
        let signerCertificate = try receiptIntermediate.issue(
            subject: try DistinguishedName {
                CommonName("Simulated Application Attestation Fraud Receipt Signing")
                OrganizationalUnitName("AttestGuard Simulator Certification Authority")
                OrganizationName("AttestGuard Simulator")
                CountryName("US")
            },
            publicKey: Certificate.PublicKey(signerKey.publicKey),
            serialNumber: keys.serialNumber("receipt-signer"),
            validity: validity,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: [
                try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
                try receiptIntermediate.authorityKeyIdentifier(),
                try Certificate.Extension(SubjectKeyIdentifier(hash: Certificate.PublicKey(signerKey.publicKey)), critical: false),
                try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
            ]
        )
        self.receiptSigner = SimulatedCertificateAuthority(certificate: signerCertificate, privateKey: Certificate.PrivateKey(signerKey))
        self.receiptSigningKey = signerKey
    }

    /// The roots an attestation verifier trusts in simulator mode.
    public var attestationTrustRoots: [Certificate] { [attestationRoot.certificate] }
    /// The roots a receipt verifier trusts in simulator mode.
    public var receiptTrustRoots: [Certificate] { [receiptRoot.certificate] }
}
