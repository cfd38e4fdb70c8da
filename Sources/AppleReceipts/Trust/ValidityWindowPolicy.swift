public import Foundation
public import SwiftASN1
@_spi(DisableValidityCheck) public import X509

/// Checks that every certificate of a chain is valid at an instant, within a clock-skew tolerance.
///
/// Use it beside `RFC5280Policy.withValidityCheckDisabled()`: a certificate whose `notBefore` lies up
/// to `tolerance` after the instant, or whose `notAfter` lies up to `tolerance` before it, still passes.
/// This is the one place the attestation and receipt verifiers apply clock skew to certificates.
public struct ValidityWindowPolicy: VerifierPolicy, Sendable {
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The instant the chain must be valid at.
    public let instant: Date
    /// How far either validity bound may be missed, in seconds.
    public let tolerance: TimeInterval

    public init(instant: Date, tolerance: TimeInterval) {
        self.instant = instant
        self.tolerance = max(0, tolerance)
    }

    public func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        for certificate in chain {
            if certificate.notValidBefore > instant.addingTimeInterval(tolerance) {
                let subject = certificate.subject
                return .failsToMeetPolicy(
                    reason: "certificate \(subject) is not valid before \(certificate.notValidBefore), checked at \(instant)"
                )
            }
            if certificate.notValidAfter < instant.addingTimeInterval(-tolerance) {
                let subject = certificate.subject
                return .failsToMeetPolicy(
                    reason: "certificate \(subject) expired at \(certificate.notValidAfter), checked at \(instant)"
                )
            }
        }
        return .meetsPolicy
    }
}

extension ValidityWindowPolicy {
    /// A swift-certificates `Verifier` that builds chains to `anchors` under RFC 5280, with certificate validity
    /// checked by this policy at `instant` within `tolerance` instead of by RFC 5280's own check, which has no skew.
    package static func verifier(
        anchors: CertificateStore,
        instant: Date,
        tolerance: TimeInterval
    ) -> Verifier<some VerifierPolicy> {
        Verifier(rootCertificates: anchors) {
            RFC5280Policy.withValidityCheckDisabled()
            ValidityWindowPolicy(instant: instant, tolerance: tolerance)
        }
    }
}
