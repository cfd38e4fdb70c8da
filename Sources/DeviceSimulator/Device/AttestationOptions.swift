public import Foundation
public import AttestCore
public import X509

/// Knobs for minting an attestation, including deliberately wrong ones for negative tests.
public struct AttestationOptions: Sendable {
    /// The extension map iOS 27 devices append after the COSE key (flags unchanged: AT only); `nil` appends none, as
    /// devices before iOS 27 do. By default an App Store build, bundle version 1.
    public var appleExtensions: AppleAuthenticatorExtensions? = AttestationOptions.appStoreBuild
    /// The map of an App Store build with bundle version 1.
    public static let appStoreBuild = AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: "1")
    /// The sign counter to write (0 is correct).
    public var signCount: UInt32 = 0
    /// An aaguid to write instead of the device environment's.
    public var aaguid: [UInt8]?
    /// A credential id to write instead of the key id.
    public var credentialId: [UInt8]?
    /// A nonce to certify instead of the right one.
    public var nonce: [UInt8]?
    /// A CA to sign the credential certificate instead of the PKI's App Attest intermediate
    /// (the x5c still carries the real intermediate).
    public var credentialIssuer: SimulatedCertificateAuthority?
    /// The key's access-control policy, written into the credential certificate's extension 1.2.840.113635.100.8.6 in
    /// the shape of Apple's 2026 certificates (``KeyAccessControlExtension``); `nil` (the default) writes none, as
    /// devices before iOS 27 do. ``iOS27KeyAccessControl`` is the policy of Apple's iOS 27 sample; a Mac's is another.
    public var keyAccessControlPolicy: [UInt8]?
    /// Whether that extension is marked critical.
    public var keyAccessControlCritical = false
    /// The key access-control policy Apple's iOS 27 validation-guide sample carries.
    public static let iOS27KeyAccessControl: [UInt8] = Hex.decode(
        "30430c023131303d300a0c036f6b64a1030101ff30090c026f61a1030101ff300b0c046f73676ea1030101ff300b0c046f64656ca103"
            + "0101ff300a0c036f636ba1030101ff"
    ) ?? []
    /// More extensions for the credential certificate (an unknown critical one, say).
    public var extraCredentialExtensions: [Certificate.Extension] = []
    /// The credential certificate's lifetime around the attestation instant (Apple: a day before, about 350 days after).
    public var credentialValidity: (before: TimeInterval, after: TimeInterval) = (86_400, 350 * 86_400)

    public init() {}
}
