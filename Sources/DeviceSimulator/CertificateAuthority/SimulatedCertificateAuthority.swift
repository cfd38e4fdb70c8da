public import Foundation
public import Crypto
public import X509
import SwiftASN1

/// One simulated certificate authority: its certificate and the key that signs with it.
public struct SimulatedCertificateAuthority: Sendable {
    /// The CA's certificate.
    public let certificate: Certificate
    /// The CA's signing key.
    public let privateKey: Certificate.PrivateKey
    /// The DER bytes of the certificate, serialized once (every minted object embeds them).
    public let derEncoded: [UInt8]

    /// Pairs a CA certificate with a signing key (tests pair a real name with a wrong key).
    public init(certificate: Certificate, privateKey: Certificate.PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.derEncoded = certificate.derBytes
    }

    /// Creates a self-signed root, shaped like Apple's (basic constraints CA critical, key usage
    /// keyCertSign + cRLSign critical, subject key identifier).
    public static func root(
        subject: DistinguishedName,
        key: P384.Signing.PrivateKey,
        serialNumber: [UInt8],
        validity: ClosedRange<Date>
    ) throws -> SimulatedCertificateAuthority {
        let privateKey = Certificate.PrivateKey(key)
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: serialNumber),
            publicKey: publicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions([
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
                try Certificate.Extension(SubjectKeyIdentifier(hash: publicKey), critical: false),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
            ]),
            issuerPrivateKey: privateKey
        )
        return SimulatedCertificateAuthority(certificate: certificate, privateKey: privateKey)
    }

    /// Creates an intermediate CA signed by this one (path length 0, key usage critical, AKI and SKI).
    /// Apple's App Attest intermediate holds a P-384 key, its receipt intermediate a P-256 key.
    public func intermediate(
        subject: DistinguishedName,
        key: Certificate.PrivateKey,
        serialNumber: [UInt8],
        validity: ClosedRange<Date>
    ) throws -> SimulatedCertificateAuthority {
        let publicKey = key.publicKey
        let certificate = try issue(
            subject: subject,
            publicKey: publicKey,
            serialNumber: serialNumber,
            validity: validity,
            extensions: [
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true),
                try authorityKeyIdentifier(),
                try Certificate.Extension(SubjectKeyIdentifier(hash: publicKey), critical: false),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
            ]
        )
        return SimulatedCertificateAuthority(certificate: certificate, privateKey: key)
    }

    /// Issues a certificate signed by this CA. Apple's roots sign intermediates with ECDSA-SHA-384 and
    /// the intermediates sign leaf certificates (credential, receipt signer) with ECDSA-SHA-256.
    public func issue(
        subject: DistinguishedName,
        publicKey: Certificate.PublicKey,
        serialNumber: [UInt8],
        validity: ClosedRange<Date>,
        signatureAlgorithm: Certificate.SignatureAlgorithm = .ecdsaWithSHA384,
        extensions: [Certificate.Extension]
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: serialNumber),
            publicKey: publicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: certificate.subject,
            subject: subject,
            signatureAlgorithm: signatureAlgorithm,
            extensions: try Certificate.Extensions(extensions),
            issuerPrivateKey: privateKey
        )
    }

    /// The authority key identifier extension naming this CA's key.
    public func authorityKeyIdentifier() throws -> Certificate.Extension {
        let identifier = SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier
        return try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: identifier), critical: false)
    }
}

extension Certificate {
    /// The certificate's DER encoding.
    public var derBytes: [UInt8] {
        var serializer = DER.Serializer()
        // Serializing a certificate that was parsed or built succeeds; an empty result never verifies.
        try? serializer.serialize(self)
        return serializer.serializedBytes
    }
}
