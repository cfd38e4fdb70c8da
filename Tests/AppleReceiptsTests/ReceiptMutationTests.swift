import Testing
import Foundation
import AppleReceipts
import DeviceSimulator
import AttestTestSupport

/// Seeded mutations of every real receipt and a simulated one: each yields a typed verdict, and a
/// mutation that still verifies decodes to the original's fields.
struct ReceiptMutationTests {
    struct ReceiptCase: CustomStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let appId: String
        let instant: Date
        let verifier: ReceiptVerifier
        var description: String { name }
    }

    static let cases: [ReceiptCase] = {
        var cases = AppleFixtures.receiptVectors.map {
            ReceiptCase(name: $0.vector, bytes: AppleFixtures.object($0.objectPath), appId: $0.appId, instant: $0.verifyInstant, verifier: ReceiptVerifier())
        }
        cases.append(ReceiptCase(
            name: "real-2024", bytes: RealDevice2024.receipt, appId: RealDevice2024.app.appId, instant: RealDevice2024.verifyAt, verifier: ReceiptVerifier()))
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "receipt-corpus")
        let minted = try! SimulatorFixtures.attestation(device: device, key: device.generateKey(), challenge: SimulatorFixtures.challenge("receipt-corpus"))
        cases.append(ReceiptCase(
            name: "simulated", bytes: minted.receipt, appId: SimulatorFixtures.app.appId, instant: SimulatorFixtures.now,
            verifier: ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots)))
        return cases
    }()

    @Test(arguments: cases)
    func receiptMutationsGiveTypedVerdicts(testCase: ReceiptCase) async throws {
        let expectation = ReceiptExpectation(appId: testCase.appId)
        let original = try await testCase.verifier.verify(testCase.bytes, expecting: expectation, at: testCase.instant).get()
        var failures = 0
        for mutation in MutationCorpus(of: testCase.bytes, named: testCase.name, count: 100) {
            switch await testCase.verifier.verify(mutation.bytes, expecting: expectation, at: testCase.instant) {
            case .valid(let receipt):
                #expect(receipt.fields == original.fields, "\(mutation)")
            case .invalid(let error):
                failures += 1
                #expect(!error.detail.isEmpty, "\(mutation)")
            }
        }
        #expect(failures > 80)
    }
}
