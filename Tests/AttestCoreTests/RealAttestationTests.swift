import Testing
import Foundation
import AttestCore
import AppleReceipts
import AttestTestSupport
import AttestGuardWire

/// Real Apple attestations verify at their own instants, and each documented negative fails with its code.
struct RealAttestationTests {
    let verifier = AttestationVerifier()

    @Test func realDevice2024AttestationVerifies() async throws {
        let verdict = await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt)
        let attestation = try verdict.get()
        #expect(attestation.environment == .development)
        #expect(attestation.keyId == RealDevice2024.keyId)
        #expect(attestation.publicKeyX963 == Array(RealDevice2024.publicKey.x963Representation))
        #expect(attestation.receipt.type == .attest)
        #expect(attestation.receipt.environment == "sandbox")
        #expect(RFC3339.format(attestation.receipt.creationTime) == "2024-01-27T16:15:33.169Z")
        #expect(attestation.receiptBytes == RealDevice2024.receipt)
        #expect(attestation.certificateInformation.osVersion == "17.2.1")
        #expect(attestation.certificateInformation.appIdentifier == RealDevice2024.app.appId)
        #expect(attestation.certificateInformation.osBuild == "21C66")
        #expect(attestation.certificateInformation.osInfo[1104] == .integer(4_294_967_295))
        #expect(attestation.certificateInformation.appInfo[1200] == .integer(1))
        #expect(attestation.credential.trailingData.isEmpty)
        #expect(attestation.authenticatorData.flags == .attestedCredentialData)
    }

    @Test(arguments: AppleFixtures.attestationVectors)
    func realDevices2020AttestationsVerify(vector: ManifestVector) async throws {
        let verdict = await verifier.verify(AppleFixtures.object(vector.objectPath), request: vector.attestationRequest, at: vector.verifyInstant)
        let attestation = try verdict.get()
        #expect(attestation.environment == .development)
        #expect(attestation.publicKeyX963 == Array(vector.publicKey.x963Representation))
        #expect(Hex.encode(attestation.clientDataHash) == vector.clientDataHashHex)
        #expect(attestation.receipt.type == .attest)
    }

    @Test func flippedChallengeByteIsNonceMismatch() async {
        var request = RealDevice2024.request
        var challenge = RealDevice2024.challenge
        challenge[0] ^= 0x01
        request.clientData = .challenge(challenge)
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .nonceMismatch)
    }

    @Test func claimingProductionIsAaguidMismatch() async {
        var request = RealDevice2024.request
        request.allowedEnvironments = [.production]
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .aaguidMismatch)
    }

    @Test func verifyingAfterTheLeafExpiredIsChainInvalid() async {
        let verdict = await verifier.verify(
            RealDevice2024.attestation, request: RealDevice2024.request, at: AppleFixtures.instant("2025-06-01T00:00:00Z"))
        #expect(verdict.error?.code == .chainInvalid)
        #expect(verdict.error?.detail.contains("expired") == true)
    }

    @Test func anotherTeamIdIsRpIdMismatch() async {
        var request = RealDevice2024.request
        request.app = AppIdentity(teamId: "AAAAAAAAAA", bundleId: "org.reactjs.native.example.RNClientAttest")
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .rpIdMismatch)
    }

    @Test func anotherKeyIdIsKeyIdMismatch() async {
        var request = RealDevice2024.request
        request.keyId[5] ^= 0x80
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .keyIdMismatch)
    }

    @Test func rawChallengeConventionIsNonceMismatchForAHashingApp() async {
        var request = RealDevice2024.request
        request.clientData = .challenge(RealDevice2024.challenge, hashing: .none)
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .nonceMismatch)
    }

    @Test func callerSuppliedClientDataHashVerifies() async throws {
        var request = RealDevice2024.request
        request.clientData = .clientDataHash(Hex.decode("3c2ce702add6f1ceff354f511ae19a64bb1856aeeb90c784b992dad04948670d")!)
        let verdict = await verifier.verify(RealDevice2024.attestation, request: request, at: RealDevice2024.verifyAt)
        #expect(verdict.attestation != nil)
    }

    @Test func aForeignRootIsChainInvalid() async {
        let foreign = AttestationVerifier(trustRoots: [ReceiptTrustAnchor.appleRootCAG3])
        let verdict = await foreign.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func anExpiredReceiptSignerIsReceiptInvalid() async {
        // The leaf is valid until 2025-01-13, the receipt signer only until 2024-04-06.
        let verdict = await verifier.verify(
            RealDevice2024.attestation, request: RealDevice2024.request, at: AppleFixtures.instant("2024-06-01T00:00:00Z"))
        #expect(verdict.error?.code == .receiptInvalid)
        #expect(verdict.error?.receiptError?.code == .chainInvalid)
    }
}
