import AttestGuardEngine
import AttestVocabulary

extension AppBuildPolicy {
    /// Reads one app's build policy (`apps.<app>.build.*`): the validation categories allowed per environment, the
    /// minimum bundle version and the strict mode. Nothing set allows every build, as before iOS 27.
    static func reading(_ values: ConfigValues) throws -> AppBuildPolicy {
        var allowed: [AppAttestEnvironment: Set<ValidationCategory>] = [:]
        for environment in AppAttestEnvironment.allCases {
            let key = "allowedCategories.\(environment.rawValue)"
            let names = values.stringArray(key)
            guard !names.isEmpty else { continue }
            allowed[environment] = Set(try names.compactMap { name in
                guard let category = ValidationCategory(name: name) else {
                    let known = ValidationCategory.known.map(\.name).joined(separator: ", ")
                    return try values.report(
                        ConfigurationError(key: values.path(key), "unknown validation category \(name) (\(known), or unknown(N) for Apple's number N)"),
                        instead: nil
                    )
                }
                return category
            })
        }
        var minimum: DottedVersion?
        if let text = try values.quotedText("minimumBundleVersion") {
            if let version = DottedVersion(text) {
                minimum = version
            } else {
                try values.report(
                    ConfigurationError(key: values.path("minimumBundleVersion"), "must be dot-separated whole numbers (4, 4.2, 4.2.1), got \(text)")
                )
            }
        }
        return AppBuildPolicy(
            allowedCategories: allowed, minimumBundleVersion: minimum,
            requiresExtensions: try values.bool("requireAuthenticatorExtensions", default: false)
        )
    }
}
