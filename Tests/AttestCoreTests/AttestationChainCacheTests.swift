import Testing
import Foundation
import Crypto
import X509
import AttestCore
import AppleReceipts
import DeviceSimulator
import AttestTestSupport

/// The attestation verifier checks Apple's intermediate against its root once per intermediate and the credential
/// certificate every time. What it remembers must answer as a full check would: every attestation a fresh verifier
/// rejects is rejected with the same code by one that has the intermediate remembered.
struct AttestationChainCacheTests {
    typealias Counts = ChainValidationCounter.Counts

    /// Which certificate of a chain lives shorter than the credential certificate it leads to.
    enum ShortLived: String, CaseIterable, Sendable {
        case intermediate, root
    }

    /// A verifier of Apple's attestations (or the simulator's, or under other attestation roots) that counts how it
    /// validates chains.
    static func counted(simulator: Bool = false, attestationRoots: [Certificate]? = nil) -> (AttestationVerifier, ChainValidationCounter) {
        let counter = ChainValidationCounter()
        let verifier = AttestationVerifier(
            trustRoots: attestationRoots
                ?? (simulator ? SimulatorFixtures.pki.attestationTrustRoots : [AppAttestTrustAnchor.appleAppAttestationRoot]),
            receiptTrustRoots: simulator ? SimulatorFixtures.pki.receiptTrustRoots : [ReceiptTrustAnchor.appleRootCAG3],
            clockSkewTolerance: 120,
            chainValidationCounter: counter
        )
        return (verifier, counter)
    }

    /// A counting verifier of the simulator's attestations that has verified one and so remembers the simulator's
    /// intermediate.
    static func primedSimulatorVerifier() async throws -> (AttestationVerifier, ChainValidationCounter) {
        let (verifier, counter) = counted(simulator: true)
        let honest = try simulated("chain-cache-honest")
        _ = try await verifier.verify(honest.object, request: honest.request, at: SimulatorFixtures.now).get()
        #expect(counter.counts == Counts(chainsToRoot: 1))
        return (verifier, counter)
    }

    /// A simulated attestation with its request; `options` and `intermediate` (the x5c's second certificate) vary it.
    static func simulated(
        _ label: String,
        options: AttestationOptions = AttestationOptions(),
        intermediate: [UInt8]? = nil,
        pki: SimulatedApplePKI = SimulatorFixtures.pki
    ) throws -> (object: [UInt8], request: AttestationRequest) {
        let device = SimulatedDevice(pki: pki, identifier: label)
        let key = device.generateKey()
        let challenge = SimulatorFixtures.challenge(label)
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge, options: options)
        var object = minted.object
        if let intermediate {
            let parts = try AttestationObject(cbor: object)
            object = AttestationObject(
                certificates: [parts.certificates[0], intermediate], receipt: parts.receipt, authenticatorData: parts.authenticatorData
            ).cborEncoded
        }
        return (object, SimulatorFixtures.request(key: key, challenge: challenge))
    }

    @Test("a real attestation verified again takes the remembered intermediate")
    func secondVerificationHitsTheCache() async throws {
        let (verifier, counter) = Self.counted()
        let first = try await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).get()
        #expect(counter.counts == Counts(chainsToRoot: 1))
        let second = try await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).get()
        #expect(counter.counts == Counts(chainsToRoot: 1, linksToVerifiedIntermediate: 1))
        #expect(second.publicKeyX963 == first.publicKeyX963)
        #expect(second.certificates == first.certificates)
    }

    @Test("every real attestation verifies at its own instant, with Apple's intermediate checked against the root once")
    func realAttestationsShareOneVerifiedIntermediate() async throws {
        let (verifier, counter) = Self.counted()
        _ = try await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).get()
        for vector in AppleFixtures.attestationVectors {
            let verdict = await verifier.verify(AppleFixtures.object(vector.objectPath), request: vector.attestationRequest, at: vector.verifyInstant)
            #expect(verdict.attestation != nil, "\(vector): \(String(describing: verdict.error))")
        }
        #expect(counter.counts == Counts(chainsToRoot: 1, linksToVerifiedIntermediate: AppleFixtures.attestationVectors.count))
    }

    @Test(
        "a tampered intermediate is chain_invalid once the genuine one is remembered",
        arguments: [("its serial number", 20), ("its signature", -1)]
    )
    func tamperedIntermediateIsChainInvalid(part: String, offset: Int) async throws {
        let (verifier, counter) = Self.counted()
        _ = try await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).get()
        let parts = try AttestationObject(cbor: RealDevice2024.attestation)
        var intermediate = parts.certificates[1]
        intermediate[offset >= 0 ? offset : intermediate.count + offset] ^= 0x01
        #expect((try? Certificate(derEncoded: intermediate)) != nil, "\(part): the tampered intermediate still parses")
        let tampered = AttestationObject(
            certificates: [parts.certificates[0], intermediate], receipt: parts.receipt, authenticatorData: parts.authenticatorData
        ).cborEncoded

        let cached = await verifier.verify(tampered, request: RealDevice2024.request, at: RealDevice2024.verifyAt)
        let fresh = await AttestationVerifier().verify(tampered, request: RealDevice2024.request, at: RealDevice2024.verifyAt)
        #expect(cached.error?.code == .chainInvalid)
        #expect(cached.error?.detail == fresh.error?.detail)
        #expect(counter.counts == Counts(chainsToRoot: 2))
        // The genuine intermediate is still the one remembered.
        #expect(await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).attestation != nil)
        #expect(counter.counts == Counts(chainsToRoot: 2, linksToVerifiedIntermediate: 1))
    }

    @Test("the remembered intermediate's subject and key, issued by another root, are chain_invalid")
    func intermediateFromAnotherRootIsChainInvalid() async throws {
        let (verifier, counter) = try await Self.primedSimulatorVerifier()

        // Every field of the genuine intermediate, its key among them, under a root of the same name but another key:
        // the credential certificate's signature verifies with it, only the link to the pinned root does not.
        let genuine = SimulatorFixtures.pki.attestationIntermediate
        let impostor = try SimulatedApplePKI(seed: "chain-cache-foreign").attestationRoot.intermediate(
            subject: genuine.certificate.subject,
            key: genuine.privateKey,
            serialNumber: Array(genuine.certificate.serialNumber.bytes),
            validity: genuine.certificate.notValidBefore...genuine.certificate.notValidAfter
        )
        #expect(impostor.certificate.issuer == SimulatorFixtures.pki.attestationRoot.certificate.subject)
        let attempt = try Self.simulated("chain-cache-impostor", intermediate: impostor.derEncoded)
        let leaf = try Certificate(derEncoded: try AttestationObject(cbor: attempt.object).certificates[0])
        #expect(impostor.certificate.publicKey.isValidSignature(leaf.signature, for: leaf))

        let verdict = await verifier.verify(attempt.object, request: attempt.request, at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .chainInvalid)
        #expect(counter.counts == Counts(chainsToRoot: 2))
    }

    @Test("a credential certificate the remembered intermediate did not sign is chain_invalid")
    func credentialCertificateFromAnotherCAIsChainInvalid() async throws {
        let (verifier, counter) = try await Self.primedSimulatorVerifier()
        var options = AttestationOptions()
        options.credentialIssuer = try SimulatedApplePKI(seed: "chain-cache-foreign").attestationIntermediate
        let attempt = try Self.simulated("chain-cache-foreign-leaf", options: options)

        let verdict = await verifier.verify(attempt.object, request: attempt.request, at: SimulatorFixtures.now)
        let fresh = await Self.counted(simulator: true).0.verify(attempt.object, request: attempt.request, at: SimulatorFixtures.now)
        #expect(verdict.error?.code == .chainInvalid)
        #expect(verdict.error?.detail == fresh.error?.detail)
        // The short path refused it, then the full validation decided.
        #expect(counter.counts == Counts(chainsToRoot: 2, linksToVerifiedIntermediate: 1))
    }

    @Test("an attestation from another PKI is chain_invalid once an intermediate is remembered")
    func anotherRootIsChainInvalid() async throws {
        let (verifier, counter) = try await Self.primedSimulatorVerifier()
        let foreign = try Self.simulated("chain-cache-foreign-pki", pki: try SimulatedApplePKI(seed: "chain-cache-foreign"))
        #expect(await verifier.verify(foreign.object, request: foreign.request, at: SimulatorFixtures.now).error?.code == .chainInvalid)
        #expect(counter.counts == Counts(chainsToRoot: 2))
    }

    @Test("a remembered link counts only inside both certificates' validity, with the clock skew", arguments: ShortLived.allCases)
    func instantsOutsideTheLinksValidityAreChainInvalid(shortLived: ShortLived) async throws {
        let pki = SimulatorFixtures.pki
        let now = SimulatorFixtures.now
        let notBefore = now.addingTimeInterval(-3_600)
        let notAfter = now.addingTimeInterval(86_400)
        // The credential certificate is valid from a day before `now` to 350 days after: only the short-lived
        // certificate can fail the chain.
        let root = shortLived == .root
            ? try SimulatedCertificateAuthority.root(
                subject: pki.attestationRoot.certificate.subject,
                key: pki.keys.p384("chain-cache-short-lived-root"),
                serialNumber: pki.keys.serialNumber("chain-cache-short-lived-root"),
                validity: notBefore...notAfter
            )
            : pki.attestationRoot
        let genuine = pki.attestationIntermediate.certificate
        let intermediate = try root.intermediate(
            subject: genuine.subject,
            key: Certificate.PrivateKey(pki.keys.p384("chain-cache-short-lived-\(shortLived)")),
            serialNumber: pki.keys.serialNumber("chain-cache-short-lived-\(shortLived)"),
            validity: shortLived == .intermediate ? notBefore...notAfter : genuine.notValidBefore...genuine.notValidAfter
        )
        var options = AttestationOptions()
        options.credentialIssuer = intermediate
        let attestation = try Self.simulated("chain-cache-short-lived-\(shortLived)", options: options, intermediate: intermediate.derEncoded)
        let (verifier, counter) = Self.counted(simulator: true, attestationRoots: [root.certificate])
        func verify(at instant: Date, with verifier: AttestationVerifier = verifier) async -> AttestationVerdict {
            await verifier.verify(attestation.object, request: attestation.request, at: instant)
        }

        #expect(await verify(at: now).attestation != nil)
        #expect(await verify(at: notAfter.addingTimeInterval(100)).attestation != nil, "the skew forgives 100 s")
        #expect(counter.counts == Counts(chainsToRoot: 1, linksToVerifiedIntermediate: 1))

        for (instant, words) in [(notAfter.addingTimeInterval(300), "expired"), (notBefore.addingTimeInterval(-300), "not valid before")] {
            let cached = await verify(at: instant)
            let fresh = await verify(at: instant, with: Self.counted(simulator: true, attestationRoots: [root.certificate]).0)
            #expect(cached.error?.code == .chainInvalid)
            #expect(cached.error?.detail.contains(words) == true, "\(String(describing: cached.error))")
            #expect(cached.error?.detail == fresh.error?.detail)
        }
        // Outside the window nothing remembered is used: both went to the full validation.
        #expect(counter.counts == Counts(chainsToRoot: 3, linksToVerifiedIntermediate: 1))
    }

    @Test("a root with name constraints, which bind the credential certificate too, is never remembered")
    func rootWithNameConstraintsIsCheckedEveryTime() async throws {
        let pki = SimulatorFixtures.pki
        let genuine = pki.attestationRoot.certificate
        let key = Certificate.PrivateKey(pki.keys.p384("chain-cache-constrained-root"))
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: pki.keys.serialNumber("chain-cache-constrained-root")),
            publicKey: key.publicKey,
            notValidBefore: genuine.notValidBefore,
            notValidAfter: genuine.notValidAfter,
            issuer: genuine.subject,
            subject: genuine.subject,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions([
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
                try Certificate.Extension(NameConstraints(excludedDNSDomains: ["example.invalid"]), critical: true),
            ]),
            issuerPrivateKey: key
        )
        let root = SimulatedCertificateAuthority(certificate: certificate, privateKey: key)
        let intermediate = try root.intermediate(
            subject: pki.attestationIntermediate.certificate.subject,
            key: Certificate.PrivateKey(pki.keys.p384("chain-cache-constrained-intermediate")),
            serialNumber: pki.keys.serialNumber("chain-cache-constrained-intermediate"),
            validity: genuine.notValidBefore...genuine.notValidAfter
        )
        var options = AttestationOptions()
        options.credentialIssuer = intermediate
        let attestation = try Self.simulated("chain-cache-constrained", options: options, intermediate: intermediate.derEncoded)
        let (verifier, counter) = Self.counted(simulator: true, attestationRoots: [certificate])
        for _ in 0..<2 {
            let verdict = await verifier.verify(attestation.object, request: attestation.request, at: SimulatorFixtures.now)
            #expect(verdict.attestation != nil, "\(String(describing: verdict.error))")
        }
        #expect(counter.counts == Counts(chainsToRoot: 2))
    }

    @Test("many tasks verifying at once share what is remembered and get every verdict right")
    func concurrentVerifications() async throws {
        let counter = ChainValidationCounter()
        let verifier = AttestationVerifier(
            trustRoots: [AppAttestTrustAnchor.appleAppAttestationRoot] + SimulatorFixtures.pki.attestationTrustRoots,
            receiptTrustRoots: [ReceiptTrustAnchor.appleRootCAG3] + SimulatorFixtures.pki.receiptTrustRoots,
            clockSkewTolerance: 120,
            chainValidationCounter: counter
        )
        var foreignSigned = AttestationOptions()
        foreignSigned.credentialIssuer = try SimulatedApplePKI(seed: "chain-cache-foreign").attestationIntermediate
        struct Job: Sendable {
            let object: [UInt8]
            let request: AttestationRequest
            let instant: Date
            let valid: Bool
        }
        var jobs: [Job] = []
        for index in 0..<24 {
            let honest = try Self.simulated("chain-cache-burst-\(index)")
            jobs.append(Job(object: honest.object, request: honest.request, instant: SimulatorFixtures.now, valid: true))
        }
        for index in 0..<8 {
            let forged = try Self.simulated("chain-cache-forged-\(index)", options: foreignSigned)
            jobs.append(Job(object: forged.object, request: forged.request, instant: SimulatorFixtures.now, valid: false))
        }
        for _ in 0..<8 {
            jobs.append(Job(object: RealDevice2024.attestation, request: RealDevice2024.request, instant: RealDevice2024.verifyAt, valid: true))
        }

        let verdicts = await withTaskGroup(of: (Int, AttestationVerdict).self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask { (index, await verifier.verify(job.object, request: job.request, at: job.instant)) }
            }
            var verdicts: [Int: AttestationVerdict] = [:]
            for await (index, verdict) in group { verdicts[index] = verdict }
            return verdicts
        }
        for (index, job) in jobs.enumerated() {
            let verdict = try #require(verdicts[index])
            if job.valid {
                #expect(verdict.attestation != nil, "job \(index): \(String(describing: verdict.error))")
            } else {
                #expect(verdict.error?.code == .chainInvalid, "job \(index)")
            }
        }
        let burst = counter.counts
        #expect(burst.chainsToRoot >= 2, "each intermediate is checked against its root at least once")
        #expect(burst.chainsToRoot + burst.linksToVerifiedIntermediate >= jobs.count)

        // Afterwards both intermediates are remembered.
        #expect(await verifier.verify(jobs[0].object, request: jobs[0].request, at: jobs[0].instant).attestation != nil)
        #expect(await verifier.verify(RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt).attestation != nil)
        #expect(counter.counts == Counts(chainsToRoot: burst.chainsToRoot, linksToVerifiedIntermediate: burst.linksToVerifiedIntermediate + 2))
    }
}
