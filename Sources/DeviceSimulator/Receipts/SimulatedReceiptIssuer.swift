public import Foundation
import Crypto
import SwiftASN1
import X509
public import AppleReceipts

/// Mints receipts the way Apple does: a CMS SignedData envelope in indefinite-length BER, the content in
/// 1000-byte OCTET STRING chunks, the signer, intermediate and root certificates in chain order, and one
/// SignerInfo without signed attributes whose ECDSA-SHA-256 signature covers the payload.
public struct SimulatedReceiptIssuer: Sendable {
    /// The PKI whose receipt signer signs.
    public let pki: SimulatedApplePKI

    public init(pki: SimulatedApplePKI) {
        self.pki = pki
    }

    /// The DER payload: `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, in field order.
    public static func payload(_ fields: [ReceiptField]) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { set in
            for field in fields {
                try? set.appendConstructedNode(identifier: .sequence) { sequence in
                    try sequence.serialize(field.type)
                    try sequence.serialize(field.version)
                    try sequence.serialize(ASN1OctetString(contentBytes: field.value[...]))
                }
            }
        }
        return serializer.serializedBytes
    }

    /// Mints a receipt with the given contents.
    public func receipt(_ contents: ReceiptContents) -> [UInt8] {
        receipt(payload: Self.payload(contents.fields))
    }

    /// Mints a receipt around an arbitrary payload (tests use it for malformed payloads).
    public func receipt(payload: [UInt8]) -> [UInt8] {
        let signature = (try? pki.receiptSigningKey.signature(for: payload).derRepresentation).map(Array.init) ?? []
        return envelope(payload: payload, signature: signature)
    }

    /// Mints the RECEIPT Apple's attestationData endpoint returns when a key's receipt is redeemed.
    /// - Parameters:
    ///   - previous: The receipt being redeemed (its App ID, certificate, client hash, token and environment carry over).
    ///   - riskMetric: Attested keys on the device in the last 30 days.
    ///   - now: The creation time; not-before is a day later, expiration 90 days later (as Apple does).
    public func refresh(_ previous: Receipt, riskMetric: Int, at now: Date) -> [UInt8] {
        receipt(
            ReceiptContents(
                appId: previous.appId,
                attestedCertificate: previous.attestedKey,
                clientHash: previous.clientHash ?? [],
                token: previous.token ?? "",
                type: .receipt,
                environment: previous.environment ?? ReceiptContents.environmentField(for: .production),
                creationTime: now,
                riskMetric: riskMetric,
                notBefore: now.addingTimeInterval(86_400)
            )
        )
    }

    /// Wraps a payload and a signature in Apple's envelope shape. A signature by a key outside the PKI makes a
    /// receipt that parses but never verifies (the fake Apple's tampered receipts).
    public func envelope(payload: [UInt8], signature: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        BERWriter.indefinite(0x30, into: &output) {  // ContentInfo
            $0 += Self.der(ReceiptOIDs.signedData)
            BERWriter.indefinite(0xA0, into: &$0) {  // [0] EXPLICIT
                BERWriter.indefinite(0x30, into: &$0) {  // SignedData
                    $0 += [0x02, 0x01, 0x01]
                    $0 += Self.digestAlgorithms
                    BERWriter.indefinite(0x30, into: &$0) {  // encapContentInfo
                        $0 += Self.der(ReceiptOIDs.data)
                        BERWriter.indefinite(0xA0, into: &$0) {
                            BERWriter.indefinite(0x24, into: &$0) {  // constructed OCTET STRING
                                var offset = 0
                                while offset < payload.count {
                                    let chunk = payload[offset..<min(offset + 1000, payload.count)]
                                    $0 += BERWriter.primitive(tag: 0x04, chunk)
                                    offset += chunk.count
                                }
                            }
                        }
                    }
                    BERWriter.indefinite(0xA0, into: &$0) {  // [0] IMPLICIT certificates, chain order
                        $0 += pki.receiptSigner.derEncoded
                        $0 += pki.receiptIntermediate.derEncoded
                        $0 += pki.receiptRoot.derEncoded
                    }
                    $0 += signerInfos(signature: signature)
                }
            }
        }
        return output
    }

    private func signerInfos(signature: [UInt8]) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.appendConstructedNode(identifier: .set) { set in
            try set.appendConstructedNode(identifier: .sequence) { info in
                try info.serialize(1)
                try info.appendConstructedNode(identifier: .sequence) { sid in
                    try sid.serialize(pki.receiptSigner.certificate.issuer)
                    sid.serializeRawBytes(Self.der(integerBytes: Array(pki.receiptSigner.certificate.serialNumber.bytes)))
                }
                info.serializeRawBytes(Self.digestAlgorithm)
                try info.appendConstructedNode(identifier: .sequence) { algorithm in
                    try algorithm.serialize(ReceiptOIDs.ecdsaWithSHA256)
                }
                try info.serialize(ASN1OctetString(contentBytes: signature[...]))
            }
        }
        return serializer.serializedBytes
    }

    static let digestAlgorithm: [UInt8] = {
        var serializer = DER.Serializer()
        try? serializer.appendConstructedNode(identifier: .sequence) { algorithm in
            try algorithm.serialize(ReceiptOIDs.sha256)
            try algorithm.serialize(ASN1Null())
        }
        return serializer.serializedBytes
    }()

    static let digestAlgorithms: [UInt8] = BERWriter.primitive(tag: 0x31, digestAlgorithm[...])

    static func der(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(oid)
        return serializer.serializedBytes
    }

    static func der(integerBytes: [UInt8]) -> [UInt8] {
        BERWriter.primitive(tag: 0x02, integerBytes[...])
    }
}

/// The object identifiers a receipt envelope names.
enum ReceiptOIDs {
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
}

/// Hand-written BER for the parts of Apple's envelope that DER cannot express.
enum BERWriter {
    /// Appends `tag 0x80 <content> 00 00` (indefinite length).
    static func indefinite(_ tag: UInt8, into output: inout [UInt8], _ content: (inout [UInt8]) -> Void) {
        output += [tag, 0x80]
        content(&output)
        output += [0x00, 0x00]
    }

    /// A definite-length TLV.
    static func primitive(tag: UInt8, _ content: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = [tag]
        let length = content.count
        if length < 0x80 {
            output.append(UInt8(length))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = length
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            output.append(0x80 | UInt8(lengthBytes.count))
            output += lengthBytes
        }
        return output + content
    }
}
