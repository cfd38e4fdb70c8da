import Testing
import Foundation
import Crypto
import AttestCore
import AppleReceipts
import DeviceSimulator
import AttestTestSupport
import AttestVocabulary

/// Seeded mutations of every real and simulated attestation and assertion: each one yields a typed
/// verdict (never a crash, hang or unbounded allocation), and the rare mutation that still verifies
/// must verify to the same key and counter as the original.
struct MutationCorpusTests {
    struct AttestationCase: CustomStringConvertible, Sendable {
        let name: String
        let object: [UInt8]
        let request: AttestationRequest
        let instant: Date
        let verifier: AttestationVerifier
        var description: String { name }
    }

    static let attestationCases: [AttestationCase] = {
        var cases = [AttestationCase(
            name: "real-2024", object: RealDevice2024.attestation, request: RealDevice2024.request,
            instant: RealDevice2024.verifyAt, verifier: AttestationVerifier()
        )]
        for vector in AppleFixtures.attestationVectors {
            cases.append(AttestationCase(
                name: vector.vector, object: AppleFixtures.object(vector.objectPath),
                request: vector.attestationRequest,
                instant: vector.verifyInstant, verifier: AttestationVerifier()
            ))
        }
        for environment in AppAttestEnvironment.allCases {
            let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "corpus", environment: environment)
            let key = device.generateKey()
            let challenge = SimulatorFixtures.challenge("corpus")
            let minted = try! SimulatorFixtures.attestation(device: device, key: key, challenge: challenge)
            cases.append(AttestationCase(
                name: "simulated-\(environment)", object: minted.object,
                request: SimulatorFixtures.request(key: key, challenge: challenge), instant: SimulatorFixtures.now,
                verifier: SimulatorFixtures.verifier
            ))
        }
        return cases
    }()

    @Test(arguments: attestationCases)
    func attestationMutationsGiveTypedVerdicts(testCase: AttestationCase) async throws {
        let original = try await testCase.verifier.verify(testCase.object, request: testCase.request, at: testCase.instant).get()
        var failures = 0
        for mutation in MutationCorpus(of: testCase.object, named: testCase.name, count: 120) {
            switch await testCase.verifier.verify(mutation.bytes, request: testCase.request, at: testCase.instant) {
            case .valid(let verified):
                #expect(verified.publicKeyX963 == original.publicKeyX963, "\(mutation)")
                #expect(verified.receipt.creationTime == original.receipt.creationTime, "\(mutation)")
            case .invalid(let error):
                failures += 1
                #expect(!error.detail.isEmpty, "\(mutation)")
            }
        }
        #expect(failures > 100)
    }

    struct AssertionCase: CustomStringConvertible, Sendable {
        let name: String
        let object: [UInt8]
        let publicKey: P256.Signing.PublicKey
        let app: AppIdentity
        let clientData: [UInt8]
        var description: String { name }
    }

    static let assertionCases: [AssertionCase] = {
        var cases = [AssertionCase(
            name: "real-2024", object: RealDevice2024.assertion, publicKey: RealDevice2024.publicKey,
            app: RealDevice2024.app, clientData: RealDevice2024.clientData
        )]
        for vector in AppleFixtures.assertionVectors {
            cases.append(AssertionCase(
                name: vector.vector, object: AppleFixtures.object(vector.objectPath), publicKey: vector.publicKey,
                app: AppIdentity(appId: vector.appId), clientData: Array(vector.clientDataUtf8!.utf8)
            ))
        }
        var key = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "corpus").generateKey()
        let clientData = Array("{\"v\":1,\"challenge\":\"corpus\"}".utf8)
        cases.append(AssertionCase(
            name: "simulated", object: key.assertion(app: SimulatorFixtures.app, clientData: clientData),
            publicKey: key.publicKey, app: SimulatorFixtures.app, clientData: clientData
        ))
        return cases
    }()

    @Test(arguments: assertionCases)
    func assertionMutationsGiveTypedVerdicts(testCase: AssertionCase) throws {
        let verifier = AssertionVerifier()
        _ = try verifier.verify(testCase.object, publicKey: testCase.publicKey, app: testCase.app, clientData: testCase.clientData, previousCounter: 0).get()
        var failures = 0
        for mutation in MutationCorpus(of: testCase.object, named: testCase.name, count: 600) {
            switch verifier.verify(mutation.bytes, publicKey: testCase.publicKey, app: testCase.app, clientData: testCase.clientData, previousCounter: 0) {
            case .valid(let verified):
                #expect(verified.counter == 1, "\(mutation)")
            case .invalid(let error):
                failures += 1
                #expect(!error.detail.isEmpty, "\(mutation)")
            }
        }
        #expect(failures > 500)
    }

    @Test(arguments: attestationCases.map(\.object) + assertionCases.map(\.object))
    func cborDecoderMutationsThrowTypedErrorsOrDecode(object: [UInt8]) {
        let decoder = CBORDecoder()
        for mutation in MutationCorpus(of: object, seed: UInt64(object.count), count: 1_000) {
            do {
                let item = try decoder.decode(mutation.bytes)
                // Anything that decodes re-encodes to something that decodes to the same item (NaN aside).
                if !item.containsNaN {
                    #expect(try decoder.decode(CBOREncoder.encode(item)) == item, "\(mutation)")
                }
            } catch {
                #expect(error.offset >= 0 && error.offset <= mutation.bytes.count, "\(mutation): \(error)")
            }
        }
    }
}

extension CBOR {
    var containsNaN: Bool {
        switch self {
        case .float(let value): value.isNaN
        case .array(let elements): elements.contains(where: \.containsNaN)
        case .map(let entries): entries.contains { $0.key.containsNaN || $0.value.containsNaN }
        case .tagged(_, let content): content.containsNaN
        default: false
        }
    }
}
