import Testing
import Foundation
import AttestCore
import AttestTestSupport

/// Real Apple assertions verify with their registered keys, and each documented negative fails with its code.
struct RealAssertionTests {
    let verifier = AssertionVerifier()

    @Test func realDevice2024AssertionVerifies() throws {
        let assertion = try verifier.verify(
            RealDevice2024.assertion, publicKey: RealDevice2024.publicKey, app: RealDevice2024.app,
            clientData: RealDevice2024.clientData, previousCounter: 0
        ).get()
        #expect(assertion.counter == 1)
        #expect(assertion.authenticatorData.rawValue.count == 37)
        #expect(assertion.authenticatorData.flags == .attestedCredentialData)
        #expect(Hex.encode(assertion.clientDataHash) == "ef6c5b6fa9092de462bc53146d9e6d66a0b766e32e707ba73ced6f7bc76c49aa")
        #expect(assertion.clientData == RealDevice2024.clientData)
    }

    @Test(arguments: AppleFixtures.assertionVectors)
    func realDevices2020AssertionsVerify(vector: ManifestVector) throws {
        let assertion = try verifier.verify(
            AppleFixtures.object(vector.objectPath), publicKey: vector.publicKey, app: AppIdentity(appId: vector.appId),
            clientData: Array(vector.clientDataUtf8!.utf8), previousCounter: vector.previousCounter!
        ).get()
        #expect(assertion.counter == vector.expectedCounter)
        #expect(Hex.encode(assertion.clientDataHash) == vector.clientDataHashHex)
    }

    @Test func previousCounterOneIsCounterNotIncreasing() {
        let verdict = verifier.verify(
            RealDevice2024.assertion, publicKey: RealDevice2024.publicKey, app: RealDevice2024.app,
            clientData: RealDevice2024.clientData, previousCounter: 1)
        #expect(verdict.error?.code == .counterNotIncreasing)
    }

    @Test func aFlippedSignatureByteIsSignatureInvalid() throws {
        var object = try AssertionObject(cbor: RealDevice2024.assertion)
        var signature = object.signature
        signature[signature.count - 3] ^= 0x01
        object = AssertionObject(signature: signature, authenticatorData: object.authenticatorData)
        let verdict = verifier.verify(
            object.cborEncoded, publicKey: RealDevice2024.publicKey, app: RealDevice2024.app,
            clientData: RealDevice2024.clientData, previousCounter: 0)
        #expect(verdict.error?.code == .signatureInvalid)
    }

    @Test func anotherClientDataIsSignatureInvalid() {
        var clientData = RealDevice2024.clientData
        clientData[clientData.count / 2] ^= 0x20
        let verdict = verifier.verify(
            RealDevice2024.assertion, publicKey: RealDevice2024.publicKey, app: RealDevice2024.app,
            clientData: clientData, previousCounter: 0)
        #expect(verdict.error?.code == .signatureInvalid)
    }

    @Test func anotherTeamIdIsRpIdMismatch() {
        let verdict = verifier.verify(
            RealDevice2024.assertion, publicKey: RealDevice2024.publicKey,
            app: AppIdentity(teamId: "AAAAAAAAAA", bundleId: "org.reactjs.native.example.RNClientAttest"),
            clientData: RealDevice2024.clientData, previousCounter: 0)
        #expect(verdict.error?.code == .rpIdMismatch)
    }

    @Test func anotherKeyIsSignatureInvalid() {
        let other = AppleFixtures.publicKey("real-devices-dev-2020/ios-14.2/public_key.pem")
        let verdict = verifier.verify(
            RealDevice2024.assertion, publicKey: other, app: RealDevice2024.app,
            clientData: RealDevice2024.clientData, previousCounter: 0)
        #expect(verdict.error?.code == .signatureInvalid)
    }

    @Test func trailingAuthenticatorDataBytesAreHashedAsReceived() throws {
        // Appending a byte changes the nonce, so a real signature no longer verifies: the verifier hashes
        // the whole authenticatorData rather than a fixed 37-byte prefix.
        let object = try AssertionObject(cbor: RealDevice2024.assertion)
        let extended = AssertionObject(signature: object.signature, authenticatorData: object.authenticatorData + [0xA0])
        let verdict = verifier.verify(
            extended.cborEncoded, publicKey: RealDevice2024.publicKey, app: RealDevice2024.app,
            clientData: RealDevice2024.clientData, previousCounter: 0)
        #expect(verdict.error?.code == .signatureInvalid)
    }
}
