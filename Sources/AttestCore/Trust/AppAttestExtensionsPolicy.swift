import SwiftASN1
import X509

/// Declares the credential certificate's App Attest extensions understood when a certificate marks them critical: the
/// nonce (8.2), app information (8.5), the key's access-control policy (8.6) and OS information (8.7), which the
/// attestation verifier reads or checks itself after the chain validates. Any other critical extension still fails the
/// chain, as RFC 5280 (section 4.2) requires of an extension the relying party does not recognise: swift-certificates'
/// `Verifier` refuses a certificate with a critical extension no policy of it verifies.
struct AppAttestExtensionsPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        AppleCertificateExtensions.nonce, AppleCertificateExtensions.appInfo, KeyAccessControlExtension.oid, AppleCertificateExtensions.osInfo,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        .meetsPolicy
    }
}
