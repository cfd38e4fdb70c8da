public import SwiftASN1
import X509

/// The App Attest-specific extensions of a credential certificate, by OID.
public enum AppleCertificateExtensions {
    /// 1.2.840.113635.100.8.2: the nonce, `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    public static let nonce: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]
    /// 1.2.840.113635.100.8.5: app information (informational).
    public static let appInfo: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 5]
    /// 1.2.840.113635.100.8.7: operating system information (informational).
    public static let osInfo: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 7]

    /// Reads the 32-byte nonce out of the nonce extension's DER value.
    ///
    /// ```
    /// AppAttestNonce ::= SEQUENCE { nonce [1] EXPLICIT OCTET STRING (SIZE(32)) }
    /// ```
    static func nonce(fromExtensionValue value: ArraySlice<UInt8>) throws(VerificationError) -> [UInt8] {
        do {
            let root = try DER.parse(value)
            let nonce = try DER.sequence(root, identifier: .sequence) { nodes in
                try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    try ASN1OctetString(derEncoded: node)
                }
            }
            guard nonce.bytes.count == 32 else {
                throw VerificationError(.malformedNonceExtension, "nonce is \(nonce.bytes.count) bytes, expected 32")
            }
            return Array(nonce.bytes)
        } catch let error as VerificationError {
            throw error
        } catch {
            throw VerificationError(.malformedNonceExtension, "nonce extension is not SEQUENCE { [1] OCTET STRING }: \(error)")
        }
    }
}
