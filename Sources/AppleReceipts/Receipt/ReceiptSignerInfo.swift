package import SwiftASN1
package import X509

/// The one SignerInfo of a receipt envelope.
///
/// ```
/// SignerInfo ::= SEQUENCE {
///     version            INTEGER,
///     sid                SignerIdentifier,     -- issuerAndSerialNumber or [0] subjectKeyIdentifier
///     digestAlgorithm    AlgorithmIdentifier,
///     signedAttrs        [0] IMPLICIT SET OF Attribute OPTIONAL,
///     signatureAlgorithm AlgorithmIdentifier,
///     signature          OCTET STRING,
///     unsignedAttrs      [1] IMPLICIT SET OF Attribute OPTIONAL }
/// ```
public struct ReceiptSignerInfo: Sendable {
    /// How the signer names its certificate.
    package enum Identifier: Sendable {
        case issuerAndSerialNumber(issuer: DistinguishedName, serialNumber: [UInt8])
        case subjectKeyIdentifier([UInt8])
    }

    package let identifier: Identifier
    /// The digest algorithm OID.
    package let digestAlgorithm: ASN1ObjectIdentifier
    /// The signed attributes re-encoded as a DER `SET OF` (what the signature covers), when present.
    package let signedAttributes: [UInt8]?
    /// The messageDigest attribute's value, when signed attributes are present.
    package let messageDigest: [UInt8]?
    /// The signature algorithm OID.
    package let signatureAlgorithm: ASN1ObjectIdentifier
    /// The DER ECDSA signature.
    let signature: [UInt8]

    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]

    init(berEncoded node: ASN1Node) throws {
        var identifier: Identifier?
        var digestAlgorithm: ASN1ObjectIdentifier?
        var signedAttributes: [UInt8]?
        var messageDigest: [UInt8]?
        var signatureAlgorithm: ASN1ObjectIdentifier?
        var signature: [UInt8]?
        try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)
            guard let sid = nodes.next() else { throw ReceiptError(.malformedReceipt, "SignerInfo lacks sid") }
            identifier = try Self.identifier(sid)
            digestAlgorithm = try Self.algorithm(nodes.next())
            var next = nodes.next()
            if let attributes = next, attributes.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                (signedAttributes, messageDigest) = try Self.signedAttributes(attributes)
                next = nodes.next()
            }
            signatureAlgorithm = try Self.algorithm(next)
            signature = Array(try ASN1OctetString(berEncoded: &nodes).bytes)
            while nodes.next() != nil {}
        }
        self.identifier = identifier!
        self.digestAlgorithm = digestAlgorithm!
        self.signedAttributes = signedAttributes
        self.messageDigest = messageDigest
        self.signatureAlgorithm = signatureAlgorithm!
        self.signature = signature!
    }

    private static func identifier(_ node: ASN1Node) throws -> Identifier {
        if node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            return .subjectKeyIdentifier(Array(try ASN1OctetString(berEncoded: node, withIdentifier: node.identifier).bytes))
        }
        return try BER.sequence(node, identifier: .sequence) { nodes in
            guard let issuerNode = nodes.next() else { throw ReceiptError(.malformedReceipt, "sid lacks its issuer") }
            let issuer = try DistinguishedName(derEncoded: issuerNode)
            let serial = try ArraySlice<UInt8>(berEncoded: &nodes)
            return .issuerAndSerialNumber(issuer: issuer, serialNumber: Array(serial))
        }
    }

    private static func algorithm(_ node: ASN1Node?) throws -> ASN1ObjectIdentifier {
        guard let node else { throw ReceiptError(.malformedReceipt, "SignerInfo lacks an algorithm") }
        return try BER.sequence(node, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            while nodes.next() != nil {}
            return oid
        }
    }

    /// Re-encodes `[0] IMPLICIT SET OF Attribute` as the DER `SET OF` the signature covers.
    private static func signedAttributes(_ node: ASN1Node) throws -> ([UInt8], [UInt8]?) {
        guard case .constructed(let children) = node.content else {
            throw ReceiptError(.malformedReceipt, "signedAttrs is not constructed")
        }
        var digest: [UInt8]?
        var encodings: [[UInt8]] = []
        for child in children {
            encodings.append(Array(child.encodedBytes))
            try BER.sequence(child, identifier: .sequence) { nodes in
                let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
                guard let values = nodes.next() else { return }
                if type == messageDigestOID, case .constructed(let inner) = values.content,
                    let first = inner.first(where: { _ in true })
                {
                    digest = Array(try ASN1OctetString(berEncoded: first).bytes)
                }
                while nodes.next() != nil {}
            }
        }
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { inner in
            for encoding in encodings { inner.serializeRawBytes(encoding) }
        }
        return (serializer.serializedBytes, digest)
    }

    /// Whether this signer names the certificate.
    func names(_ certificate: Certificate) -> Bool {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serialNumber):
            return certificate.issuer == issuer && Array(certificate.serialNumber.bytes) == serialNumber
        case .subjectKeyIdentifier(let keyIdentifier):
            guard let extensionValue = try? certificate.extensions.subjectKeyIdentifier else { return false }
            return Array(extensionValue.keyIdentifier) == keyIdentifier
        }
    }
}
