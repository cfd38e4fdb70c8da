import Foundation
import SwiftASN1
import X509
import Crypto
import AttestVocabulary
import AttestGuardWire

extension Receipt {
    /// Decodes a receipt payload (the signed content of the CMS envelope).
    ///
    /// ```
    /// ReceiptPayload ::= SET OF ReceiptAttribute
    /// ```
    /// - Throws: ``ReceiptError`` with code `malformed_receipt_payload` or `receipt_field_missing`.
    public init(payload: [UInt8]) throws(ReceiptError) {
        let fields: [ReceiptField]
        do {
            let root = try BER.parse(payload)
            fields = try BER.set(root, identifier: .set) { nodes in
                var fields: [ReceiptField] = []
                while let node = nodes.next() {
                    fields.append(try ReceiptField(berEncoded: node))
                }
                return fields
            }
        } catch {
            throw ReceiptError(.malformedPayload, "payload is not a SET OF receipt attributes: \(error)")
        }
        try self.init(fields: fields)
    }

    /// Decodes the known fields from a list of raw fields.
    public init(fields: [ReceiptField]) throws(ReceiptError) {
        let reader = FieldReader(fields: fields)
        self.fields = fields
        self.appId = try reader.requiredText(ReceiptFieldType.appId, "app id")
        self.attestedKey = try reader.required(ReceiptFieldType.attestedPublicKey, "attested public key")
        self.attestedPublicKeyX963 = try Self.publicKeyX963(fromAttestedKey: attestedKey)
        self.clientHash = reader.optional(ReceiptFieldType.clientHash)
        self.token = try reader.optionalText(ReceiptFieldType.token, "token")
        self.type = ReceiptType(rawValue: try reader.requiredText(ReceiptFieldType.receiptType, "receipt type"))
        self.environment = try reader.optionalText(ReceiptFieldType.environment, "environment")
        self.creationTime = try reader.requiredTime(ReceiptFieldType.creationTime, "creation time")
        self.notBefore = try reader.optionalTime(ReceiptFieldType.notBefore, "not-before time")
        self.expirationTime = try reader.optionalTime(ReceiptFieldType.expirationTime, "expiration time")
        if let metricText = try reader.optionalText(ReceiptFieldType.riskMetric, "risk metric") {
            guard let metric = Int(metricText), metric >= 0 else {
                throw ReceiptError(.malformedPayload, "risk metric \"\(metricText)\" is not a non-negative integer")
            }
            self.riskMetric = metric
        } else {
            self.riskMetric = nil
        }
    }

    /// Field 3 holds the DER credential certificate on real receipts; a bare X9.62 point is accepted too.
    static func publicKeyX963(fromAttestedKey value: [UInt8]) throws(ReceiptError) -> [UInt8] {
        if value.count == 65, value.first == 0x04, let key = try? P256.Signing.PublicKey(x963Representation: value) {
            return Array(key.x963Representation)
        }
        do {
            let certificate = try Certificate(derEncoded: value)
            guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
                throw ReceiptError(.malformedPayload, "attested certificate does not hold a P-256 key")
            }
            return Array(key.x963Representation)
        } catch let error as ReceiptError {
            throw error
        } catch {
            throw ReceiptError(.malformedPayload, "attested key is neither a certificate nor a P-256 point: \(error)")
        }
    }
}

extension ReceiptField {
    init(berEncoded node: ASN1Node) throws {
        self = try BER.sequence(node, identifier: .sequence) { nodes in
            let type = try Int(berEncoded: &nodes)
            let version = try Int(berEncoded: &nodes)
            let value = try ASN1OctetString(berEncoded: &nodes)
            return ReceiptField(type: type, version: version, value: Array(value.bytes))
        }
    }
}

/// Finds fields by type and decodes their values, reporting precisely what is missing or malformed.
private struct FieldReader {
    let fields: [ReceiptField]

    func optional(_ type: Int) -> [UInt8]? {
        fields.first(where: { $0.type == type })?.value
    }

    func required(_ type: Int, _ name: String) throws(ReceiptError) -> [UInt8] {
        guard let value = optional(type) else {
            throw ReceiptError(.fieldMissing, "field \(type) (\(name)) is missing")
        }
        return value
    }

    func optionalText(_ type: Int, _ name: String) throws(ReceiptError) -> String? {
        guard let value = optional(type) else { return nil }
        guard let text = String(validating: value, as: UTF8.self) else {
            throw ReceiptError(.malformedPayload, "field \(type) (\(name)) is not UTF-8 text")
        }
        return text
    }

    func requiredText(_ type: Int, _ name: String) throws(ReceiptError) -> String {
        _ = try required(type, name)
        return try optionalText(type, name)!
    }

    func optionalTime(_ type: Int, _ name: String) throws(ReceiptError) -> Date? {
        guard let text = try optionalText(type, name) else { return nil }
        // Apple writes UTC (`Z`); an offset, valid RFC 3339 elsewhere, is not a receipt's form.
        guard text.hasSuffix("Z"), let date = RFC3339.parse(text) else {
            throw ReceiptError(.malformedPayload, "field \(type) (\(name)) \"\(text)\" is not an ISO-8601 UTC time")
        }
        return date
    }

    func requiredTime(_ type: Int, _ name: String) throws(ReceiptError) -> Date {
        _ = try required(type, name)
        return try optionalTime(type, name)!
    }
}
