import AttestCore

/// The fields `attestguard verify` prints for iOS 27's authenticator-extension map, shared by attestations and
/// assertions: `validationCategory` (its name, `unknown(N)` for a number this build does not know), `bundleVersion`,
/// and `otherExtensionKeys` when the map has keys that are not Apple's.
enum AuthenticatorExtensionsReport {
    static func add(_ extensions: AppleAuthenticatorExtensions?, to fields: inout [String: Any]) {
        guard let extensions else { return }
        if let category = extensions.validationCategory { fields["validationCategory"] = category.name }
        if let bundleVersion = extensions.bundleVersion { fields["bundleVersion"] = bundleVersion }
        if !extensions.otherKeys.isEmpty { fields["otherExtensionKeys"] = extensions.otherKeys }
    }
}
