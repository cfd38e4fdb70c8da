import Testing
import Foundation
import Crypto
import AttestCore
import AppleReceipts
import DeviceSimulator
import AttestTestSupport
import AttestVocabulary

/// Objects the simulator mints verify through the real verifiers, in both environments.
struct SimulatorRoundTripTests {
    let verifier = SimulatorFixtures.verifier

    @Test(arguments: AppAttestEnvironment.allCases)
    func attestationVerifiesInBothEnvironments(environment: AppAttestEnvironment) async throws {
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "round-trip", environment: environment)
        let key = device.generateKey()
        let challenge = SimulatorFixtures.challenge("round-trip")
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge)
        let attestation = try await verifier.verify(
            minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge, environments: [environment]),
            at: SimulatorFixtures.now
        ).get()
        #expect(attestation.environment == environment)
        #expect(attestation.publicKeyX963 == Array(key.publicKey.x963Representation))
        #expect(attestation.receipt.type == .attest)
        #expect(attestation.receipt.environment == (environment == .development ? "sandbox" : "production"))
        #expect(attestation.receipt.token == minted.token)
        #expect(attestation.certificateInformation.appIdentifier == SimulatorFixtures.app.appId)
        #expect(attestation.certificateInformation.osVersion == "27.0")
    }

    @Test func trailingAppleExtensionDataIsAcceptedAndExposed() async throws {
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "trailing")
        let key = device.generateKey()
        let challenge = SimulatorFixtures.challenge("trailing")
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge)
        let attestation = try await verifier.verify(
            minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge), at: SimulatorFixtures.now
        ).get()
        #expect(!attestation.credential.trailingData.isEmpty)
        #expect(attestation.credential.extensions == AttestationOptions.appStoreBuild)
        #expect(!attestation.authenticatorData.flags.contains(.extensionData))
        #expect(attestation.credential.coseKeyX963 == Array(key.publicKey.x963Representation))
    }

    @Test func attestationWithoutTrailingDataVerifies() async throws {
        var options = AttestationOptions()
        options.appleExtensions = nil
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "no-trailing")
        let key = device.generateKey()
        let challenge = SimulatorFixtures.challenge("no-trailing")
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge, options: options)
        let attestation = try await verifier.verify(
            minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge), at: SimulatorFixtures.now
        ).get()
        #expect(attestation.credential.trailingData.isEmpty)
    }

    @Test func assertionsCarryARealIncreasingCounter() throws {
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "assertions")
        var key = device.generateKey()
        let verifier = AssertionVerifier()
        var previous: UInt32 = 0
        for index in 1...5 {
            let clientData = Array("{\"v\":1,\"challenge\":\"c\(index)\"}".utf8)
            let assertion = try verifier.verify(
                key.assertion(app: SimulatorFixtures.app, clientData: clientData), publicKey: key.publicKey,
                app: SimulatorFixtures.app, clientData: clientData, previousCounter: previous
            ).get()
            #expect(assertion.counter == UInt32(index))
            previous = assertion.counter
        }
        let replay = SimulatedKey.assertion(privateKey: key.privateKey, app: SimulatorFixtures.app, clientData: [1], counter: previous)
        let verdict = verifier.verify(replay, publicKey: key.publicKey, app: SimulatorFixtures.app, clientData: [1], previousCounter: previous)
        #expect(verdict.error?.code == .counterNotIncreasing)
    }

    @Test func refreshedReceiptsVerifyWithTheirRiskMetric() async throws {
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "refresh")
        let key = device.generateKey()
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: SimulatorFixtures.challenge("refresh"))
        let receiptVerifier = ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)
        let expectation = ReceiptExpectation(appId: SimulatorFixtures.app.appId, publicKeyX963: Array(key.publicKey.x963Representation))
        let attestReceipt = try await receiptVerifier.verify(minted.receipt, expecting: expectation, at: SimulatorFixtures.now).get()
        let later = SimulatorFixtures.now.addingTimeInterval(3_600)
        let refreshed = SimulatedReceiptIssuer(pki: SimulatorFixtures.pki).refresh(attestReceipt, riskMetric: 7, at: later)
        let receipt = try await receiptVerifier.verify(refreshed, expecting: expectation, at: later).get()
        #expect(receipt.type == .receipt)
        #expect(receipt.riskMetric == 7)
        #expect(receipt.token == minted.token)
        #expect(receipt.notBefore == later.addingTimeInterval(86_400))
        #expect(receipt.expirationTime == later.addingTimeInterval(90 * 86_400))
    }

    @Test func theSameSeedGivesTheSameKeys() throws {
        let other = try SimulatedApplePKI(seed: "attestguard-tests")
        let first = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "seeded").generateKey(3)
        let second = SimulatedDevice(pki: other, identifier: "seeded").generateKey(3)
        #expect(first.keyId == second.keyId)
        #expect(other.attestationRoot.certificate.publicKey == SimulatorFixtures.pki.attestationRoot.certificate.publicKey)
        #expect(SimulatedDevice(pki: other, identifier: "seeded").generateKey(4).keyId != first.keyId)
    }
}
