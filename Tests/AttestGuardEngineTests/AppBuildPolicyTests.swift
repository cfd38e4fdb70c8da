@testable import AttestGuardEngine
import AttestCore
import AttestVocabulary
import Testing

/// The build policy's decisions, one map at a time, in both environments.
@Suite("Apps: the build policy")
struct AppBuildPolicyTests {
    static let storeOnly = AppBuildPolicy(
        allowedCategories: [.production: [.appStore, .testFlight]], minimumBundleVersion: DottedVersion("4.2"), requiresExtensions: true
    )

    static func map(_ category: ValidationCategory?, _ version: String?) -> AppleAuthenticatorExtensions {
        AppleAuthenticatorExtensions(validationCategory: category, bundleVersion: version)
    }

    static func code(
        _ policy: AppBuildPolicy, _ extensions: AppleAuthenticatorExtensions?, _ environment: AppAttestEnvironment = .production,
        os: String? = "27.0"
    ) -> String? {
        do {
            try policy.check(extensions, environment: environment, osVersion: os)
            return nil
        } catch {
            #expect(error.kind == .verificationFailed)
            return error.code.rawValue
        }
    }

    @Test("a production app allowing App Store and TestFlight refuses development, enterprise and unknown categories")
    func categories() {
        #expect(Self.code(Self.storeOnly, Self.map(.appStore, "4.2")) == nil)
        #expect(Self.code(Self.storeOnly, Self.map(.testFlight, "5")) == nil)
        for category in [ValidationCategory.development, .enterprise, .developerId, .none, .unknown(77)] {
            #expect(Self.code(Self.storeOnly, Self.map(category, "5")) == "validation_category_not_allowed", "\(category)")
        }
        // Development has no entry: any category there.
        #expect(Self.code(Self.storeOnly, Self.map(.development, "5"), .development) == nil)
    }

    @Test("the minimum compares number by number; text that is not a version is below it")
    func minimumVersion() {
        for version in ["4.2", "4.2.0", "4.10", "5", "10.0.1", "2026042101", "202604211530"] {
            #expect(Self.code(Self.storeOnly, Self.map(.appStore, version)) == nil, "\(version)")
        }
        for version in ["4.1.99", "4", "3.9", "4.2-beta", "", "four", "1234567890123456789"] {
            #expect(Self.code(Self.storeOnly, Self.map(.appStore, version)) == "bundle_version_below_minimum", "\(version)")
        }
    }

    @Test("the strict mode asks the map of iOS 27 and later only; without it a missing map passes")
    func strictMode() {
        #expect(Self.code(Self.storeOnly, nil) == "authenticator_extensions_missing")
        #expect(Self.code(Self.storeOnly, nil, os: "27.0.1") == "authenticator_extensions_missing")
        #expect(Self.code(Self.storeOnly, nil, os: "28") == "authenticator_extensions_missing")
        #expect(Self.code(Self.storeOnly, Self.map(.appStore, nil)) == "authenticator_extensions_missing")
        #expect(Self.code(Self.storeOnly, Self.map(nil, "4.2")) == "authenticator_extensions_missing")
        for os in ["26.1", "17.2.1", nil, "unknown"] as [String?] {
            #expect(Self.code(Self.storeOnly, nil, os: os) == nil, "\(os ?? "nil")")
        }
        var lenient = Self.storeOnly
        lenient.requiresExtensions = false
        #expect(Self.code(lenient, nil) == nil)
        #expect(Self.code(lenient, Self.map(nil, nil)) == nil)
    }

    @Test("the category is judged before the version, and both before the strict mode")
    func precedence() {
        #expect(Self.code(Self.storeOnly, Self.map(.development, "1")) == "validation_category_not_allowed")
        #expect(Self.code(Self.storeOnly, Self.map(nil, "1")) == "bundle_version_below_minimum")
    }

    @Test("the default policy refuses nothing")
    func unrestricted() {
        let policy = AppBuildPolicy()
        #expect(policy.isUnrestricted)
        for extensions in [nil, Self.map(.development, "0"), Self.map(.unknown(99), "not a version"), Self.map(nil, nil)] {
            #expect(Self.code(policy, extensions) == nil)
        }
    }
}
