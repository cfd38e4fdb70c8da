public import AttestCore
public import AttestVocabulary

/// Which builds of an app may attest keys and sign assertions, judged on iOS 27's authenticator-extension map
/// (``AppleAuthenticatorExtensions``): the validation categories allowed in each environment, a minimum bundle
/// version, and a strict mode that requires the map from operating systems that send it.
///
/// The default allows every build and requires nothing, as before iOS 27. An attestation or assertion without the map
/// (every device before iOS 27) passes the category and version checks, which have nothing to judge; only the strict
/// mode refuses it, and only when the key's operating system is one that sends the map
/// (``firstOperatingSystemWithExtensions`` or later), so that a strict app still serves its older devices.
public struct AppBuildPolicy: Sendable, Hashable {
    /// The validation categories allowed in each environment; an environment without an entry allows any category.
    public var allowedCategories: [AppAttestEnvironment: Set<ValidationCategory>]
    /// The lowest bundle version allowed; `nil`, or `0` (which a live change stores to lift the file's minimum),
    /// allows any.
    public var minimumBundleVersion: DottedVersion?
    /// Whether an attestation or assertion of a key whose operating system sends the map must carry it, with both of
    /// Apple's keys.
    public var requiresExtensions: Bool

    /// The first operating-system version whose App Attest appends the map (iOS 27, macOS 27).
    public static let firstOperatingSystemWithExtensions = DottedVersion("27")!

    public init(
        allowedCategories: [AppAttestEnvironment: Set<ValidationCategory>] = [:], minimumBundleVersion: DottedVersion? = nil,
        requiresExtensions: Bool = false
    ) {
        self.allowedCategories = allowedCategories
        self.minimumBundleVersion = minimumBundleVersion
        self.requiresExtensions = requiresExtensions
    }

    /// Whether the policy refuses anything at all (an app that sets nothing skips the checks).
    public var isUnrestricted: Bool {
        allowedCategories.isEmpty && minimumInForce == nil && !requiresExtensions
    }

    /// The minimum in force: none for `0`, below which no version lies.
    public var minimumInForce: DottedVersion? {
        minimumBundleVersion.flatMap { $0.parts.isEmpty ? nil : $0 }
    }

    /// The codes the policy refuses with (``check(_:environment:osVersion:)``).
    public static let refusalCodes: [ErrorCode] = [.validationCategoryNotAllowed, .bundleVersionBelowMinimum, .authenticatorExtensionsMissing]

    /// Checks one attestation's or assertion's map.
    /// - Parameters:
    ///   - extensions: The map the object carries (`nil`: none).
    ///   - environment: The key's environment.
    ///   - osVersion: The operating-system version the key was attested on (the leaf certificate's); the strict
    ///     mode requires the map only when it is ``firstOperatingSystemWithExtensions`` or later.
    /// - Throws: `validation_category_not_allowed`, `bundle_version_below_minimum` or
    ///   `authenticator_extensions_missing`, in that order of precedence.
    public func check(
        _ extensions: AppleAuthenticatorExtensions?, environment: AppAttestEnvironment, osVersion: String?
    ) throws(EngineError) {
        guard !isUnrestricted else { return }
        if let allowed = allowedCategories[environment], let category = extensions?.validationCategory, !allowed.contains(category) {
            let names = allowed.map(\.name).sorted().joined(separator: ", ")
            throw EngineError.verification(
                .validationCategoryNotAllowed, "the build's validation category is \(category.name); \(environment.rawValue) allows \(names)"
            )
        }
        if let minimum = minimumInForce, let text = extensions?.bundleVersion {
            guard let version = DottedVersion(text) else {
                throw EngineError.verification(
                    .bundleVersionBelowMinimum, "the build's bundle version \(text.prefix(64)) is not a version; the minimum is \(minimum)"
                )
            }
            guard version >= minimum else {
                throw EngineError.verification(.bundleVersionBelowMinimum, "the build's bundle version is \(text); the minimum is \(minimum)")
            }
        }
        if requiresExtensions, Self.sendsExtensions(osVersion: osVersion),
            extensions?.validationCategory == nil || extensions?.bundleVersion == nil
        {
            let missing = extensions == nil ? "the authenticator-extension map" : "both a validation category and a bundle version"
            throw EngineError.verification(
                .authenticatorExtensionsMissing, "the key's operating system \(osVersion ?? "-") sends \(missing); this object lacks it"
            )
        }
    }

    /// Whether an operating system of this version appends the map; an unknown or unreadable version is taken to be
    /// an older one, so that the strict mode never refuses a device it cannot place.
    public static func sendsExtensions(osVersion: String?) -> Bool {
        guard let osVersion, let version = DottedVersion(osVersion) else { return false }
        return version >= firstOperatingSystemWithExtensions
    }
}
