import Testing
import Foundation
import Crypto
import X509
import AttestCore
import AppleReceipts
import DeviceSimulator
import AttestTestSupport

/// Deliberately wrong simulator objects fail with the precise code of the check they break.
struct SimulatedNegativeTests {
    let verifier = SimulatorFixtures.verifier
    let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "negative")
    let challenge = SimulatorFixtures.challenge("negative")

    func verdict(options: AttestationOptions = AttestationOptions(), at instant: Date = SimulatorFixtures.now) async throws -> AttestationVerdict {
        let key = device.generateKey()
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge, options: options)
        return await verifier.verify(minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge), at: instant)
    }

    func verdict(object: [UInt8]) async -> AttestationVerdict {
        await verifier.verify(object, request: SimulatorFixtures.request(key: device.generateKey(), challenge: challenge), at: SimulatorFixtures.now)
    }

    func mintedObject() throws -> AttestationObject {
        let minted = try SimulatorFixtures.attestation(device: device, key: device.generateKey(), challenge: challenge)
        return try AttestationObject(cbor: minted.object)
    }

    @Test func nonZeroSignCountIsCounterNotZero() async throws {
        var options = AttestationOptions()
        options.signCount = 1
        #expect(try await verdict(options: options).error?.code == .counterNotZero)
    }

    @Test func unknownAaguidIsAaguidMismatch() async throws {
        var options = AttestationOptions()
        options.aaguid = Array("appattestsandbox".utf8)
        #expect(try await verdict(options: options).error?.code == .aaguidMismatch)
    }

    @Test func otherCredentialIdIsCredentialIdMismatch() async throws {
        var options = AttestationOptions()
        options.credentialId = [UInt8](repeating: 0xAB, count: 32)
        #expect(try await verdict(options: options).error?.code == .credentialIdMismatch)
    }

    @Test func wrongCertifiedNonceIsNonceMismatch() async throws {
        var options = AttestationOptions()
        options.nonce = [UInt8](repeating: 0, count: 32)
        #expect(try await verdict(options: options).error?.code == .nonceMismatch)
    }

    @Test func leafSignedByAForeignCAIsChainInvalid() async throws {
        let foreign = try SimulatedApplePKI(seed: "foreign")
        var options = AttestationOptions()
        options.credentialIssuer = foreign.attestationIntermediate
        #expect(try await verdict(options: options).error?.code == .chainInvalid)
    }

    @Test func leafResignedByAnotherKeyUnderTheSameNameIsChainInvalid() async throws {
        // Same subject and extensions as the real intermediate, but another key.
        let impostorKey = P384.Signing.PrivateKey()
        let impostor = SimulatedCertificateAuthority(
            certificate: SimulatorFixtures.pki.attestationIntermediate.certificate,
            privateKey: Certificate.PrivateKey(impostorKey)
        )
        var options = AttestationOptions()
        options.credentialIssuer = impostor
        #expect(try await verdict(options: options).error?.code == .chainInvalid)
    }

    @Test func aChainFromAForeignRootIsChainInvalid() async throws {
        let foreign = try SimulatedApplePKI(seed: "foreign")
        let foreignDevice = SimulatedDevice(pki: foreign, identifier: "negative")
        let key = foreignDevice.generateKey()
        let minted = try SimulatorFixtures.attestation(device: foreignDevice, key: key, challenge: challenge)
        let verdict = await verifier.verify(minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge), at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func swappedCertificatesAreChainInvalid() async throws {
        let object = try mintedObject()
        let swapped = AttestationObject(certificates: object.certificates.reversed(), receipt: object.receipt, authenticatorData: object.authenticatorData)
        let verdict = await verdict(object: swapped.cborEncoded)
        #expect(verdict.error?.code == .malformedPublicKey || verdict.error?.code == .chainInvalid)
    }

    @Test func aMissingIntermediateIsChainInvalid() async throws {
        let object = try mintedObject()
        let trimmed = AttestationObject(certificates: [object.certificates[0]], receipt: object.receipt, authenticatorData: object.authenticatorData)
        #expect(await verdict(object: trimmed.cborEncoded).error?.code == .chainInvalid)
    }

    @Test func anExpiredCredentialCertificateIsChainInvalidButTheSkewForgivesSeconds() async throws {
        var options = AttestationOptions()
        options.credentialValidity = (86_400, 60)
        let later = SimulatorFixtures.now.addingTimeInterval(60 + 100)
        #expect(try await verdict(options: options, at: later).attestation != nil)
        let muchLater = SimulatorFixtures.now.addingTimeInterval(60 + 300)
        #expect(try await verdict(options: options, at: muchLater).error?.code == .chainInvalid)
    }

    @Test func aCredentialCertificateFromTheFutureIsChainInvalid() async throws {
        var options = AttestationOptions()
        options.credentialValidity = (-600, 86_400)
        #expect(try await verdict(options: options).error?.code == .chainInvalid)
    }

    @Test func aFlippedAuthenticatorDataByteIsNonceMismatch() async throws {
        let object = try mintedObject()
        for index in [0, 32, 40, 60, object.authenticatorData.count - 1] {
            var authenticatorData = object.authenticatorData
            authenticatorData[index] ^= 0x01
            let mutated = AttestationObject(certificates: object.certificates, receipt: object.receipt, authenticatorData: authenticatorData)
            let verdict = await verdict(object: mutated.cborEncoded)
            #expect(verdict.error?.code == .nonceMismatch, "byte \(index): \(String(describing: verdict.error))")
        }
    }

    @Test func aTruncatedAuthenticatorDataIsMalformed() async throws {
        let object = try mintedObject()
        for length in [0, 36, 37, 50, 90] {
            let mutated = AttestationObject(
                certificates: object.certificates, receipt: object.receipt, authenticatorData: Array(object.authenticatorData.prefix(length)))
            #expect(await verdict(object: mutated.cborEncoded).error?.code == .malformedAuthenticatorData, "length \(length)")
        }
    }

    @Test func anotherFormatIsUnsupportedFormat() async throws {
        let object = try mintedObject()
        let mutated = AttestationObject(format: "packed", certificates: object.certificates, receipt: object.receipt, authenticatorData: object.authenticatorData)
        #expect(await verdict(object: mutated.cborEncoded).error?.code == .unsupportedFormat)
    }

    @Test func aGarbageCertificateIsMalformedCertificate() async throws {
        let object = try mintedObject()
        let mutated = AttestationObject(certificates: [[0x30, 0x03, 0x02, 0x01, 0x01]] + object.certificates.dropFirst(), receipt: object.receipt, authenticatorData: object.authenticatorData)
        #expect(await verdict(object: mutated.cborEncoded).error?.code == .malformedCertificate)
    }

    @Test func aReceiptFromAnotherKeyIsReceiptInvalid() async throws {
        let object = try mintedObject()
        let other = try SimulatorFixtures.attestation(device: device, key: device.generateKey(9), challenge: challenge)
        let mutated = AttestationObject(certificates: object.certificates, receipt: other.receipt, authenticatorData: object.authenticatorData)
        let verdict = await verdict(object: mutated.cborEncoded)
        #expect(verdict.error?.code == .receiptInvalid)
        #expect(verdict.error?.receiptError?.code == .publicKeyMismatch)
    }

    @Test func aTamperedReceiptPayloadIsReceiptSignatureInvalid() async throws {
        let object = try mintedObject()
        var receipt = object.receipt
        let token = Array(device.token(for: device.generateKey().keyId).utf8.prefix(12))
        let range = try #require(receipt.firstRange(of: token))
        receipt[range.lowerBound] ^= 0x02
        let mutated = AttestationObject(certificates: object.certificates, receipt: receipt, authenticatorData: object.authenticatorData)
        let verdict = await verdict(object: mutated.cborEncoded)
        #expect(verdict.error?.receiptError?.code == .signatureInvalid)
    }

    @Test func aReceiptSignedUnderAForeignRootIsReceiptChainInvalid() async throws {
        let foreign = try SimulatedApplePKI(seed: "foreign")
        let key = device.generateKey()
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge)
        let receipt = try await ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
            .verify(minted.receipt, expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now).get()
        let forged = SimulatedReceiptIssuer(pki: foreign).refresh(receipt, riskMetric: 1, at: SimulatorFixtures.now)
        let verdict = await ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
            .verify(forged, expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func aPayloadWithoutItsCreationTimeIsFieldMissing() async throws {
        let fields = [ReceiptField(type: 2, value: Array(SimulatorFixtures.app.appId.utf8)), ReceiptField(type: 3, value: Array(device.generateKey().publicKey.x963Representation)), ReceiptField(type: 6, value: Array("RECEIPT".utf8))]
        let receipt = SimulatedReceiptIssuer(pki: SimulatorFixtures.pki).receipt(payload: SimulatedReceiptIssuer.payload(fields))
        let verdict = await ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
            .verify(receipt, expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .fieldMissing)
    }

    @Test func unknownReceiptFieldsAreKept() async throws {
        let key = device.generateKey()
        let contents = ReceiptContents(
            appId: SimulatorFixtures.app.appId, attestedCertificate: Array(key.publicKey.x963Representation), clientHash: [],
            token: "t", type: .receipt, environment: "production", creationTime: SimulatorFixtures.now, riskMetric: 2,
            extraFields: [ReceiptField(type: 99, value: [1, 2, 3])]
        )
        let receipt = try await ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
            .verify(SimulatedReceiptIssuer(pki: SimulatorFixtures.pki).receipt(contents), expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now).get()
        #expect(receipt.fields.last == ReceiptField(type: 99, value: [1, 2, 3]))
        #expect(receipt.riskMetric == 2)
    }

    @Test func aNonNumericRiskMetricIsMalformedPayload() async throws {
        let fields = ReceiptContents(
            appId: SimulatorFixtures.app.appId, attestedCertificate: Array(device.generateKey().publicKey.x963Representation), clientHash: [],
            token: "t", type: .receipt, environment: "production", creationTime: SimulatorFixtures.now
        ).fields + [ReceiptField(type: 17, value: Array("many".utf8))]
        let receipt = SimulatedReceiptIssuer(pki: SimulatorFixtures.pki).receipt(payload: SimulatedReceiptIssuer.payload(fields))
        let verdict = await ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
            .verify(receipt, expecting: ReceiptExpectation(appId: SimulatorFixtures.app.appId), at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .malformedPayload)
    }
}
