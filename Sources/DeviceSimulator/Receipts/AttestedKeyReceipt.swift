public import AttestCore
import Crypto
public import Foundation
import X509
public import AttestVocabulary

/// A fresh P-256 key with its ATTEST receipt, as a key's registration stores it: a credential certificate issued
/// by the simulated App Attest CA and a real-format receipt naming it, with a token derived from the key id.
/// For filling a store with many due receipts quickly (tests of the receipt scheduler, the receipt benchmark):
/// no attestation object is built and nothing is verified.
public struct AttestedKeyReceipt: Sendable, Hashable {
    /// SHA-256 of the public key (Apple's key identifier).
    public let keyId: Data
    /// The X9.63 (65-byte) public key.
    public let publicKey: Data
    /// Field 5 of the receipt, from which the fake Apple derives the key's risk metric.
    public let token: String
    /// The ATTEST receipt (CMS, BER, signed by the simulated receipt signer).
    public let receipt: Data

    /// Mints a key of `app` attested in `environment` at `attestedAt`; the credential certificate is valid from a
    /// minute before to three days after.
    public init(pki: SimulatedApplePKI, app: AppIdentity, environment: AppAttestEnvironment, at attestedAt: Date) throws {
        let key = P256.Signing.PrivateKey()
        let publicKey = Data(key.publicKey.x963Representation)
        let keyId = Data(SHA256.hash(data: publicKey))
        let credential = try pki.attestationIntermediate.issue(
            subject: try DistinguishedName { CommonName(Hex.encode(Array(keyId))) },
            publicKey: Certificate.PublicKey(key.publicKey),
            serialNumber: Array(keyId.prefix(16)),
            validity: attestedAt.addingTimeInterval(-60)...attestedAt.addingTimeInterval(3 * 86_400),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: []
        )
        let token = Base64Text.encode(Array(SHA256.hash(data: keyId + Data("token".utf8))))
        let receipt = SimulatedReceiptIssuer(pki: pki).receipt(
            ReceiptContents(
                appId: app.appId,
                attestedCertificate: credential.derBytes,
                clientHash: Array(SHA256.hash(data: keyId)),
                token: token,
                type: .attest,
                environment: ReceiptContents.environmentField(for: environment),
                creationTime: attestedAt
            )
        )
        self.keyId = keyId
        self.publicKey = publicKey
        self.token = token
        self.receipt = Data(receipt)
    }
}
