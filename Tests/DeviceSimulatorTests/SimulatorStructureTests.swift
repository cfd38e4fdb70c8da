import Testing
import Foundation
import Crypto
import SwiftASN1
import X509
import AttestCore
import AppleReceipts
import DeviceSimulator
import AttestTestSupport

/// The simulator's objects have the same structure as Apple's real ones, so the verifiers are proven
/// against Apple's shapes and not only against their author's reading of the documentation.
struct SimulatorStructureTests {
    static let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "structure", environment: .development)
    static let key = device.generateKey()
    static let minted = try! SimulatorFixtures.attestation(device: device, key: key, challenge: SimulatorFixtures.challenge("structure"))

    // MARK: Attestation object

    @Test func attestationCBORHasApplesKeysTypesAndOrder() throws {
        let real = try CBORDecoder().decode(RealDevice2024.attestation)
        let simulated = try CBORDecoder().decode(Self.minted.object)
        #expect(shape(of: simulated) == shape(of: real))
        #expect(shape(of: real) == "map{fmt:text,attStmt:map{x5c:array[bytes,bytes],receipt:bytes},authData:bytes}")
    }

    @Test func authenticatorDataHasApplesLayout() throws {
        let real = try layout(of: AttestationObject(cbor: RealDevice2024.attestation).authenticatorData)
        var options = AttestationOptions()
        options.appleExtensions = nil
        let plain = try SimulatorFixtures.attestation(device: Self.device, key: Self.key, challenge: [1], options: options)
        let simulated = try layout(of: AttestationObject(cbor: plain.object).authenticatorData)
        #expect(simulated == real)
        #expect(real == "rpIdHash:32 flags:0x40 signCount:0 aaguid:appattestdevelop credentialId:32 cose:map{1:int,3:int,-1:int,-2:bytes32,-3:bytes32} trailing:0")
    }

    @Test func credentialCertificatesHaveApplesExtensionsAndAlgorithms() throws {
        let realObject = try AttestationObject(cbor: RealDevice2024.attestation)
        let simulatedObject = try AttestationObject(cbor: Self.minted.object)
        let real = try Certificate(derEncoded: realObject.certificates[0])
        let simulated = try Certificate(derEncoded: simulatedObject.certificates[0])
        #expect(extensionShape(of: simulated) == extensionShape(of: real))
        #expect(simulated.signatureAlgorithm == real.signatureAlgorithm)
        #expect(keyType(simulated) == keyType(real))
        for oid in [AppleCertificateExtensions.nonce, AppleCertificateExtensions.appInfo, AppleCertificateExtensions.osInfo] {
            let realValue = try #require(real.extensions[oid: oid]?.value)
            let simulatedValue = try #require(simulated.extensions[oid: oid]?.value)
            #expect(try derShape(simulatedValue) == derShape(realValue), "\(oid)")
        }
        let realIntermediate = try Certificate(derEncoded: realObject.certificates[1])
        let simulatedIntermediate = try Certificate(derEncoded: simulatedObject.certificates[1])
        #expect(simulatedIntermediate.signatureAlgorithm == realIntermediate.signatureAlgorithm)
        #expect(keyType(simulatedIntermediate) == keyType(realIntermediate))
        #expect(extensionShape(of: simulatedIntermediate).map(\.critical) == extensionShape(of: realIntermediate).map(\.critical))
    }

    // MARK: Assertion

    @Test func assertionsHaveApplesShape() throws {
        var key = Self.key
        let simulated = try CBORDecoder().decode(key.assertion(app: SimulatorFixtures.app, clientData: [1, 2, 3]))
        let real = try CBORDecoder().decode(RealDevice2024.assertion)
        #expect(shape(of: simulated) == shape(of: real))
        let realAuthenticatorData = try #require(real["authenticatorData"]?.bytesValue)
        let simulatedAuthenticatorData = try #require(simulated["authenticatorData"]?.bytesValue)
        #expect(realAuthenticatorData.count == simulatedAuthenticatorData.count)
        #expect(realAuthenticatorData[32] == simulatedAuthenticatorData[32])
    }

    // MARK: Receipts

    /// Apple's encodings vary: 11 of the 13 real refreshed receipts are indefinite-length BER with chunked
    /// content (compared here), 2 are definite-length DER; the verifier accepts both (every real receipt verifies).
    @Test(arguments: [
        ("real-device-dev-2024/receipt_attest.b64", "ATTEST"),
        ("real-devices-dev-2020/ios-14.2/receipt_3_receipt.der", "RECEIPT"),
    ])
    func receiptEnvelopesHaveApplesShape(realPath: String, type: String) async throws {
        let simulatedBytes = try await simulatedReceipt(type: type)
        let real = try envelopeShape(AppleFixtures.object(realPath))
        let simulated = try envelopeShape(simulatedBytes)
        #expect(simulated == real)
    }

    @Test(arguments: [
        ("real-device-dev-2024/receipt_attest.b64", "ATTEST"),
        ("real-devices-dev-2020/ios-14.2/receipt_3_receipt.der", "RECEIPT"),
    ])
    func receiptPayloadsHaveApplesFieldsAndEncodings(realPath: String, type: String) async throws {
        let real = try Receipt(payload: ReceiptEnvelope.content(of: AppleFixtures.object(realPath)))
        let simulated = try Receipt(payload: ReceiptEnvelope.content(of: try await simulatedReceipt(type: type)))
        #expect(simulated.fields.map(fieldShape) == real.fields.map(fieldShape))
    }

    // MARK: Helpers

    func simulatedReceipt(type: String) async throws -> [UInt8] {
        if type == "ATTEST" { return Self.minted.receipt }
        let verifier = ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
        let attest = try await verifier.verify(Self.minted.receipt, expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now).get()
        return SimulatedReceiptIssuer(pki: SimulatorFixtures.pki).refresh(attest, riskMetric: 2, at: SimulatorFixtures.now)
    }

    /// Keys and value types of a CBOR item, keeping key order.
    func shape(of item: CBOR) -> String {
        switch item {
        case .map(let entries):
            "map{" + entries.map { "\($0.key.textValue ?? String($0.key.integerValue ?? 0)):\(shape(of: $0.value))" }.joined(separator: ",") + "}"
        case .array(let elements): "array[" + elements.map(shape).joined(separator: ",") + "]"
        case .bytes: "bytes"
        case .text: "text"
        case .unsigned, .negative: "int"
        default: item.typeName
        }
    }

    func layout(of authenticatorData: [UInt8]) throws -> String {
        let header = try AuthenticatorData(authenticatorData)
        let credential = try AttestedCredentialData(header.remainder)
        let cose = (credential.coseKey.mapEntries ?? []).map { entry -> String in
            let value = entry.value.bytesValue.map { "bytes\($0.count)" } ?? "int"
            return "\(entry.key.integerValue ?? 0):\(value)"
        }
        return "rpIdHash:\(header.rpIdHash.count) flags:0x\(String(header.flags.rawValue, radix: 16)) signCount:\(header.signCount) "
            + "aaguid:\(String(decoding: credential.aaguid, as: UTF8.self).filter { $0 != "\0" }) credentialId:\(credential.credentialId.count) "
            + "cose:map{\(cose.joined(separator: ","))} trailing:\(credential.trailingData.count)"
    }

    struct ExtensionShape: Equatable { let oid: String; let critical: Bool }

    func extensionShape(of certificate: Certificate) -> [ExtensionShape] {
        certificate.extensions.map { ExtensionShape(oid: "\($0.oid)", critical: $0.critical) }
    }

    func keyType(_ certificate: Certificate) -> String {
        if P256.Signing.PublicKey(certificate.publicKey) != nil { return "P-256" }
        if P384.Signing.PublicKey(certificate.publicKey) != nil { return "P-384" }
        return "other"
    }

    /// The tree of ASN.1 identifiers (tag class, number, constructed) without the values.
    func derShape(_ bytes: ArraySlice<UInt8>) throws -> String {
        func describe(_ node: ASN1Node) -> String {
            let tag = "\(node.identifier.tagClass):\(node.identifier.tagNumber)"
            switch node.content {
            case .primitive: return tag
            case .constructed(let children): return tag + "(" + children.map(describe).joined(separator: ",") + ")"
            }
        }
        return describe(try DER.parse(bytes))
    }

    /// Indefinite lengths, content chunking, certificate count and key types, and the signer's algorithms.
    func envelopeShape(_ receipt: [UInt8]) throws -> String {
        let root = try BER.parse(receipt)
        var chunks: [Int] = []
        func findChunks(_ node: ASN1Node) {
            guard case .constructed(let children) = node.content else { return }
            if node.identifier == .octetString {
                for child in children { if case .primitive(let bytes) = child.content { chunks.append(bytes.count) } }
                return
            }
            for child in children { findChunks(child) }
        }
        findChunks(root)
        let envelope = try ReceiptEnvelope(receipt)
        let chunking = chunks.dropLast().allSatisfy { $0 == 1000 } ? "1000-byte chunks" : "chunks \(chunks)"
        return "head:\(Hex.encode(receipt.prefix(2))) \(chunking) certificates:\(envelope.certificates.map(keyType)) "
            + "signedAttributes:\(envelope.signer.signedAttributes != nil) digest:\(envelope.signer.digestAlgorithm) signature:\(envelope.signer.signatureAlgorithm) "
            + "leafSignature:\(envelope.certificates[0].signatureAlgorithm)"
    }

    /// A field's type, version and the form of its value.
    func fieldShape(_ field: ReceiptField) -> String {
        let text = String(validating: field.value, as: UTF8.self) ?? ""
        let form: String
        switch field.type {
        case ReceiptFieldType.creationTime, ReceiptFieldType.notBefore, ReceiptFieldType.expirationTime:
            form = text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z/) != nil ? "time" : "time?\(text)"
        case ReceiptFieldType.attestedPublicKey:
            form = (try? Certificate(derEncoded: field.value)).map { keyType($0) + "-certificate" } ?? "not-a-certificate"
        case ReceiptFieldType.token:
            form = "base64-\(text.count)"
        case ReceiptFieldType.riskMetric:
            form = Int(text) != nil ? "decimal" : "not-decimal"
        case ReceiptFieldType.receiptType:
            form = text
        case ReceiptFieldType.environment:
            form = "environment"
        case ReceiptFieldType.clientHash:
            form = "bytes"
        default:
            form = text.isEmpty ? "bytes" : "text"
        }
        return "\(field.type)/v\(field.version)/\(form)"
    }
}
