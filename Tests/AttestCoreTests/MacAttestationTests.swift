import Testing
import Foundation
import SwiftASN1
import X509
import AttestCore
import DeviceSimulator
import AttestTestSupport

/// The credential certificate's key access-control extension (1.2.840.113635.100.8.6), which Apple's 2026
/// certificates carry (iOS 27's sample; macOS 27's Mac keys): read as opaque policy bytes, never a reason to refuse;
/// and a credential certificate's critical extensions are understood only when they are App Attest's own.
struct MacAttestationTests {
    /// A verifier under the simulator's roots, each test with its own (and so no remembered chain between tests).
    static func verify(_ label: String, options: AttestationOptions) async throws -> AttestationVerdict {
        let (verifier, _) = AttestationChainCacheTests.counted(simulator: true)
        let minted = try AttestationChainCacheTests.simulated(label, options: options)
        return await verifier.verify(minted.object, request: minted.request, at: SimulatorFixtures.now)
    }

    static func withPolicy(_ policy: [UInt8], critical: Bool = false) -> AttestationOptions {
        var options = AttestationOptions()
        options.keyAccessControlPolicy = policy
        options.keyAccessControlCritical = critical
        return options
    }

    @Test("Apple's iOS 27 sample carries the extension; its policy is read, and the simulator writes the same shape")
    func applesSampleCarriesThePolicy() async throws {
        let attestation = try await AttestationVerifier().verify(
            AppleGuide2026.attestation, request: AppleGuide2026.request, at: AppleGuide2026.verifyAt
        ).get()
        #expect(attestation.certificateInformation.keyAccessControlPolicy == AttestationOptions.iOS27KeyAccessControl)
        let simulated = try await Self.verify("ios27-policy", options: Self.withPolicy(AttestationOptions.iOS27KeyAccessControl)).get()
        #expect(simulated.certificateInformation.keyAccessControlPolicy == AttestationOptions.iOS27KeyAccessControl)
    }

    @Test("a Mac's attestation with its own policy verifies, the extension critical or not", arguments: [false, true])
    func macPolicyVerifies(critical: Bool) async throws {
        // Another policy than the iPhone's: what a Mac writes is not documented, and nothing is refused for it.
        let macPolicy = Array("a Mac key's access-control policy".utf8)
        let verified = try await Self.verify("mac-policy-\(critical)", options: Self.withPolicy(macPolicy, critical: critical)).get()
        #expect(verified.certificateInformation.keyAccessControlPolicy == macPolicy)
        #expect(verified.credential.extensions == AttestationOptions.appStoreBuild)
    }

    @Test("an extension of another shape is no policy, and the attestation still verifies")
    func otherShapesAreNoPolicy() async throws {
        var bare = AttestationOptions()
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1OctetString(contentBytes: AttestationOptions.iOS27KeyAccessControl[...]))
        bare.extraCredentialExtensions = [Certificate.Extension(oid: KeyAccessControlExtension.oid, critical: false, value: serializer.serializedBytes[...])]
        let verified = try await Self.verify("policy-bare", options: bare).get()
        #expect(verified.certificateInformation.keyAccessControlPolicy == nil)
    }

    @Test("an unknown critical extension in the credential certificate fails the chain, as RFC 5280 asks; a non-critical one is ignored")
    func unknownCriticalExtension() async throws {
        let unknown: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 99]
        for critical in [true, false] {
            var options = AttestationOptions()
            options.extraCredentialExtensions = [Certificate.Extension(oid: unknown, critical: critical, value: [0x05, 0x00])]
            let result = try await Self.verify("unknown-extension-\(critical)", options: options)
            if critical {
                #expect(result.error?.code == .chainInvalid, "\(result)")
            } else {
                #expect(result.error == nil, "\(result)")
            }
        }
    }
}
