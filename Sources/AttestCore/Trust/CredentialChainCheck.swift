import Foundation
@_spi(DisableValidityCheck) import X509
import SwiftASN1
import AppleReceipts

/// Attestation step 1: the x5c chain leads to a pinned root at the instant, with the constant link from Apple's
/// intermediate ("Apple App Attestation CA 1") to its root verified once per intermediate rather than once per
/// attestation, so that an attestation costs one P-384 verification, the credential certificate's.
///
/// swift-certificates' `Verifier` checks each link's signature while it builds a chain, not in a policy, so no policy
/// can leave one link out. Instead, once a whole chain credential certificate → intermediate → root has validated, the
/// link intermediate → root is remembered in a ``VerifiedChainCache`` under the two certificates' exact DER bytes, with
/// the window in which both are valid. An x5c that carries a remembered intermediate is then validated by the same
/// `Verifier` and policies with that intermediate as its only anchor: the credential certificate's signature by the
/// intermediate, its critical extensions, the intermediate's basic and name constraints over it, and the validity of
/// both at the instant are checked for every attestation; the root's part of the answer is the remembered one, which
/// counts only while the instant lies in the window, with the clock-skew tolerance. A root with name constraints, which
/// bind the credential certificate itself, is never remembered.
///
/// Whatever that short path does not accept goes to the full validation, which decides and describes the failure
/// exactly as it did before there was a cache (another or a tampered intermediate, another root, an expired
/// certificate). A credential certificate that the remembered intermediate did not sign so costs two P-384
/// verifications instead of one; every accepted attestation costs one.
struct CredentialChainCheck: Sendable {
    /// An intermediate and the root it chains to, by their DER bytes.
    struct IssuerLink: Hashable, Sendable {
        let intermediate: [UInt8]
        let root: [UInt8]
    }

    private let roots: [(certificate: Certificate, der: [UInt8])]
    private let rootStore: CertificateStore
    private let tolerance: TimeInterval
    private let cache: VerifiedChainCache<IssuerLink>
    private let counter: ChainValidationCounter?

    init(trustRoots: [Certificate], clockSkewTolerance: TimeInterval, counter: ChainValidationCounter?) {
        self.roots = trustRoots.map { root in
            var serializer = DER.Serializer()
            // A parsed or built certificate serializes; empty bytes would only never match.
            try? serializer.serialize(root)
            return (root, serializer.serializedBytes)
        }
        self.rootStore = CertificateStore(trustRoots)
        self.tolerance = clockSkewTolerance
        self.cache = VerifiedChainCache(clockSkewTolerance: clockSkewTolerance)
        self.counter = counter
    }

    /// Validates the chain of `certificates` (x5c parsed, leaf first; `der` the same certificates' bytes) at `now`.
    /// - Throws: ``VerificationError`` `chain_invalid`, with the full validation's failures.
    func validate(_ certificates: [Certificate], der: [[UInt8]], at now: Date) async throws(VerificationError) {
        let leaf = certificates[0]
        for index in certificates.indices.dropFirst() {
            for root in roots where cache.holds(IssuerLink(intermediate: der[index], root: root.der), at: now) {
                counter?.count(\.linksToVerifiedIntermediate)
                let anchor = CertificateStore([certificates[index]])
                var verifier = Self.verifier(anchors: anchor, instant: now, tolerance: tolerance)
                if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
                    return
                }
            }
        }
        counter?.count(\.chainsToRoot)
        var verifier = Self.verifier(anchors: rootStore, instant: now, tolerance: tolerance)
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(certificates.dropFirst())) {
        case .validCertificate(let chain):
            remember(Array(chain), certificates: certificates, der: der)
        case .couldNotValidate(let failures):
            throw VerificationError(.chainInvalid, describeChainFailures(failures))
        }
    }

    /// RFC 5280 chain building to `anchors`, validity checked at `instant` within `tolerance`, with the App Attest
    /// extensions understood where a certificate marks them critical (``AppAttestExtensionsPolicy``).
    private static func verifier(anchors: CertificateStore, instant: Date, tolerance: TimeInterval) -> Verifier<some VerifierPolicy> {
        Verifier(rootCertificates: anchors) {
            RFC5280Policy.withValidityCheckDisabled()
            ValidityWindowPolicy(instant: instant, tolerance: tolerance)
            AppAttestExtensionsPolicy()
        }
    }

    /// Remembers the link intermediate → root of a validated chain credential certificate → intermediate → root.
    private func remember(_ chain: [Certificate], certificates: [Certificate], der: [[UInt8]]) {
        guard chain.count == 3, let index = certificates.indices.dropFirst().first(where: { certificates[$0] == chain[1] }),
            let root = roots.first(where: { $0.certificate == chain[2] }),
            root.certificate.extensions[oid: .X509ExtensionID.nameConstraints] == nil
        else { return }
        cache.remember([chain[1], chain[2]], for: IssuerLink(intermediate: der[index], root: root.der))
    }
}
