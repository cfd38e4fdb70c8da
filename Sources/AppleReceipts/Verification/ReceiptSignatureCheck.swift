import Foundation
import X509
import SwiftASN1
import Crypto

/// Checks a receipt envelope's ECDSA signature and its signer's chain.
///
/// The signature covers the content itself or, when the signer included signed attributes, their
/// DER `SET OF` (whose messageDigest must then equal the content's digest), as RFC 5652 § 5.4 says.
/// The chain is built by swift-certificates' `Verifier` from the envelope's certificates to the
/// pinned roots, with certificate validity checked at the instant within the clock-skew tolerance; a chain
/// validated before is taken from the ``VerifiedChainCache`` while the instant lies in its validity window.
struct ReceiptSignatureCheck {
    /// A signer chain: the exact certificates of an envelope and which of them signed.
    struct SignerChain: Hashable, Sendable {
        /// SHA-256 over the DER of every certificate in the envelope, in order.
        let certificatesDigest: [UInt8]
        /// Which certificate is the signer's.
        let signerIndex: Int
    }

    let rootStore: CertificateStore
    let clockSkewTolerance: TimeInterval
    let chainCache: VerifiedChainCache<SignerChain>

    static let sha256OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384OID: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let ecdsaWithSHA256OID: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    static let ecdsaWithSHA384OID: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 3]

    /// `nil` when the signature and chain hold, else the failure.
    func failure(of envelope: ReceiptEnvelope, at now: Date) async -> ReceiptError? {
        let signer = envelope.signer
        guard let signerIndex = envelope.certificates.firstIndex(where: signer.names) else {
            return ReceiptError(.signatureInvalid, "no certificate in the envelope matches the signer")
        }
        let certificate = envelope.certificates[signerIndex]
        if let failure = signatureFailure(signer: signer, certificate: certificate, content: envelope.content) {
            return failure
        }
        let key = SignerChain(certificatesDigest: envelope.certificatesDigest, signerIndex: signerIndex)
        if chainCache.holds(key, at: now) {
            return nil
        }
        var verifier = ValidityWindowPolicy.verifier(anchors: rootStore, instant: now, tolerance: clockSkewTolerance)
        switch await verifier.validate(leaf: certificate, intermediates: CertificateStore(envelope.certificates)) {
        case .validCertificate(let chain):
            chainCache.remember(Array(chain), for: key)
            return nil
        case .couldNotValidate(let failures):
            return ReceiptError(.chainInvalid, describeChainFailures(failures))
        }
    }

    private func signatureFailure(signer: ReceiptSignerInfo, certificate: Certificate, content: [UInt8]) -> ReceiptError? {
        let useSHA384: Bool
        switch (signer.signatureAlgorithm, signer.digestAlgorithm) {
        case (Self.ecdsaWithSHA256OID, Self.sha256OID): useSHA384 = false
        case (Self.ecdsaWithSHA384OID, Self.sha384OID): useSHA384 = true
        default:
            return ReceiptError(
                .signatureInvalid,
                "unsupported algorithms: signature \(signer.signatureAlgorithm), digest \(signer.digestAlgorithm)"
            )
        }
        func digest(_ bytes: [UInt8]) -> [UInt8] {
            useSHA384 ? Array(SHA384.hash(data: bytes)) : Array(SHA256.hash(data: bytes))
        }
        var signedBytes = content
        if let attributes = signer.signedAttributes {
            guard let messageDigest = signer.messageDigest else {
                return ReceiptError(.signatureInvalid, "signed attributes lack a messageDigest")
            }
            guard constantTimeEqual(messageDigest, digest(content)) else {
                return ReceiptError(.signatureInvalid, "messageDigest differs from the content's digest")
            }
            signedBytes = attributes
        }
        let valid: Bool
        if let key = P256.Signing.PublicKey(certificate.publicKey) {
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signer.signature) else {
                return ReceiptError(.signatureInvalid, "signature is not a DER ECDSA signature")
            }
            valid = useSHA384
                ? key.isValidSignature(signature, for: SHA384.hash(data: signedBytes))
                : key.isValidSignature(signature, for: SHA256.hash(data: signedBytes))
        } else if let key = P384.Signing.PublicKey(certificate.publicKey) {
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: signer.signature) else {
                return ReceiptError(.signatureInvalid, "signature is not a DER ECDSA signature")
            }
            valid = useSHA384
                ? key.isValidSignature(signature, for: SHA384.hash(data: signedBytes))
                : key.isValidSignature(signature, for: SHA256.hash(data: signedBytes))
        } else {
            return ReceiptError(.signatureInvalid, "the signer's key is neither P-256 nor P-384")
        }
        return valid ? nil : ReceiptError(.signatureInvalid, "the signature does not verify with the signer's key")
    }
}
