import SwiftASN1
import Crypto
public import X509

/// The CMS SignedData envelope of a receipt, parsed but not yet verified.
///
/// ```
/// ContentInfo ::= SEQUENCE {
///     contentType OBJECT IDENTIFIER,            -- signedData
///     content     [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE {
///     version          INTEGER,
///     digestAlgorithms SET OF AlgorithmIdentifier,
///     encapContentInfo SEQUENCE {
///         eContentType OBJECT IDENTIFIER,       -- data
///         eContent     [0] EXPLICIT OCTET STRING OPTIONAL },
///     certificates     [0] IMPLICIT SET OF Certificate OPTIONAL,
///     crls             [1] IMPLICIT ... OPTIONAL,
///     signerInfos      SET OF SignerInfo }
/// ```
/// Apple encodes receipts as indefinite-length BER with the content in 1000-byte chunks and the
/// certificates in chain order (not DER set order). The BER parser joins the chunks; the set order is
/// accepted as it comes.
public struct ReceiptEnvelope: Sendable {
    /// The largest receipt accepted, in bytes (real receipts are about 4 KiB).
    public static let maximumSize = 64 * 1024

    /// The encapsulated content: the receipt payload.
    public let content: [UInt8]
    /// The certificates the envelope carries (signer and intermediates).
    public let certificates: [Certificate]
    /// The one signer.
    public let signer: ReceiptSignerInfo
    /// SHA-256 over the DER of ``certificates`` in order: identifies the chain for ``VerifiedChainCache``.
    let certificatesDigest: [UInt8]

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]

    /// Parses an envelope.
    /// - Throws: ``ReceiptError`` with code `malformed_receipt`.
    public init(_ receipt: [UInt8]) throws(ReceiptError) {
        guard !receipt.isEmpty else { throw ReceiptError(.malformedReceipt, "receipt is empty") }
        guard receipt.count <= Self.maximumSize else {
            throw ReceiptError(.malformedReceipt, "receipt of \(receipt.count) bytes exceeds \(Self.maximumSize)")
        }
        do {
            let root = try BER.parse(receipt)
            self = try BER.sequence(root, identifier: .sequence) { nodes in
                let contentType = try ASN1ObjectIdentifier(berEncoded: &nodes)
                guard contentType == Self.signedDataOID else {
                    throw ReceiptError(.malformedReceipt, "content type \(contentType) is not signedData")
                }
                return try BER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { signedData in
                    try Self(signedData: signedData)
                }
            }
        } catch let error as ReceiptError {
            throw error
        } catch {
            throw ReceiptError(.malformedReceipt, "not a CMS SignedData envelope: \(error)")
        }
    }

    private init(signedData node: ASN1Node) throws {
        var content: [UInt8]?
        var certificates: [Certificate] = []
        var certificatesHash = SHA256()
        var signers: [ReceiptSignerInfo] = []
        try BER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)
            guard let digestAlgorithms = nodes.next(), digestAlgorithms.identifier == .set else {
                throw ReceiptError(.malformedReceipt, "SignedData lacks its digestAlgorithms SET")
            }
            guard let encapsulated = nodes.next() else {
                throw ReceiptError(.malformedReceipt, "SignedData lacks encapContentInfo")
            }
            content = try Self.encapsulatedContent(encapsulated)
            while let next = nodes.next() {
                switch next.identifier {
                case ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific):
                    guard case .constructed(let children) = next.content else {
                        throw ReceiptError(.malformedReceipt, "certificates are not a constructed SET")
                    }
                    for child in children {
                        certificates.append(try Certificate(derEncoded: Array(child.encodedBytes)))
                        certificatesHash.update(data: Array(child.encodedBytes))
                    }
                case ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific):
                    continue
                case .set:
                    guard case .constructed(let children) = next.content else {
                        throw ReceiptError(.malformedReceipt, "signerInfos is not a constructed SET")
                    }
                    for child in children { signers.append(try ReceiptSignerInfo(berEncoded: child)) }
                default:
                    throw ReceiptError(.malformedReceipt, "unexpected \(next.identifier) in SignedData")
                }
            }
        }
        guard let content else { throw ReceiptError(.malformedReceipt, "the receipt has no attached content") }
        guard signers.count == 1, let signer = signers.first else {
            throw ReceiptError(.malformedReceipt, "the receipt has \(signers.count) signers, expected 1")
        }
        self.content = content
        self.certificates = certificates
        self.certificatesDigest = Array(certificatesHash.finalize())
        self.signer = signer
    }

    private static func encapsulatedContent(_ node: ASN1Node) throws -> [UInt8] {
        try BER.sequence(node, identifier: .sequence) { inner in
            let contentType = try ASN1ObjectIdentifier(berEncoded: &inner)
            guard contentType == dataOID else {
                throw ReceiptError(.malformedReceipt, "encapsulated content type \(contentType) is not data")
            }
            guard let tagged = inner.next() else {
                throw ReceiptError(.malformedReceipt, "the receipt has no attached content")
            }
            return try BER.explicitlyTagged(tagged, tagNumber: 0, tagClass: .contextSpecific) { octets in
                Array(try ASN1OctetString(berEncoded: octets).bytes)
            }
        }
    }

    /// Returns the encapsulated content (the receipt payload) of a receipt.
    public static func content(of receipt: [UInt8]) throws(ReceiptError) -> [UInt8] {
        try ReceiptEnvelope(receipt).content
    }
}
