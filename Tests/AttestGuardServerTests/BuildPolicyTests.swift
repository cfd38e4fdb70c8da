import AttestCore
import AttestGuardEngine
@testable import AttestGuardServer
import AttestTestSupport
import AttestVocabulary
import DeviceSimulator
import Foundation
import HTTPTypes
import Testing

/// An app's build policy (`apps.<app>.build.*`) refuses builds by iOS 27's extension map at attestation, at
/// assertion and through forward-auth, with a typed 422 (403 outward at forward-auth); an app that sets nothing
/// accepts every build. The simulator attests only development keys, so the policy named here is development's; the
/// engine tests hold production's.
@Suite("HTTP: the app's build policy")
struct BuildPolicyTests {
    /// App Store and TestFlight builds only, 4.2 or later, and the map required from iOS 27.
    static let strictPolicy = [
        "ATTESTGUARD_APPS_MAIN_BUILD_ALLOWED_CATEGORIES_DEVELOPMENT": "app_store,test_flight",
        "ATTESTGUARD_APPS_MAIN_BUILD_MINIMUM_BUNDLE_VERSION": "4.2",
        "ATTESTGUARD_APPS_MAIN_BUILD_REQUIRE_AUTHENTICATOR_EXTENSIONS": "true",
    ]

    /// A simulated app on iOS 27 whose attestation says `category` and `version`.
    static func app(_ user: String, osVersion: String = "27.0", category: ValidationCategory?, version: String?) -> SimulatedAppClient {
        var app = SimulatedApps.make(user: user, device: "\(user)-phone")
        app.device.osVersion = osVersion
        app.attestationExtensions =
            category == nil && version == nil ? nil : AppleAuthenticatorExtensions(validationCategory: category, bundleVersion: version)
        app.assertionExtensions = app.attestationExtensions
        return app
    }

    static func counter(_ api: APIClient, _ app: SimulatedAppClient) async throws -> Int64? {
        try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId))?.counter
    }

    @Test("attestations: a development build, an old build, and an iOS 27 one without the map are refused", arguments: ServerBackend.available)
    func attestations(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.strictPolicy) { api in
            let refusals: [(SimulatedAppClient, String)] = [
                (Self.app("dev", category: .development, version: "5"), "validation_category_not_allowed"),
                (Self.app("old", category: .appStore, version: "4.1.9"), "bundle_version_below_minimum"),
                (Self.app("odd", category: .appStore, version: "4.2-beta"), "bundle_version_below_minimum"),
                (Self.app("bare", category: nil, version: nil), "authenticator_extensions_missing"),
                (Self.app("half", category: .testFlight, version: nil), "authenticator_extensions_missing"),
            ]
            for (app, code) in refusals {
                let reply = try await api.attest(app)
                #expect(reply.status == 422 && reply.errorCode == code, "\(app.userId): \(reply.text)")
                #expect(try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId)) == nil, "\(app.userId) registered nothing")
            }
            let accepted: [SimulatedAppClient] = [
                Self.app("store", category: .appStore, version: "4.2"),
                Self.app("flight", category: .testFlight, version: "4.10"),
                // iOS 17 sends no map: the strict mode does not ask it of a device that cannot send it.
                Self.app("older", osVersion: "17.2.1", category: nil, version: nil),
            ]
            for app in accepted {
                let reply = try await api.attest(app)
                #expect(reply.status == 201, "\(app.userId): \(reply.text)")
            }
        }
    }

    @Test("assertions are judged on their own map, after the signature, and spend nothing when refused", arguments: ServerBackend.available)
    func assertions(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.strictPolicy) { api in
            var app = Self.app("alice", category: .appStore, version: "4.2")
            #expect(try await api.attest(app).status == 201)
            let refusals: [(AppleAuthenticatorExtensions?, String)] = [
                (AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "4.2"), "validation_category_not_allowed"),
                (AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: "4.1"), "bundle_version_below_minimum"),
                (nil, "authenticator_extensions_missing"),
            ]
            for (extensions, code) in refusals {
                app.assertionExtensions = extensions
                let reply = try await api.assert(&app)
                #expect(reply.status == 422 && reply.errorCode == code, "\(reply.text)")
            }
            #expect(try await Self.counter(api, app) == 0, "no refused assertion advanced the counter")
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .testFlight, bundleVersion: "4.2.1")
            let accepted = try await api.assert(&app)
            #expect(accepted.status == 200, "\(accepted.text)")

            // A key attested on iOS 17 signs without the map; the strict mode lets it.
            var older = Self.app("bob", osVersion: "17.2.1", category: nil, version: nil)
            #expect(try await api.attest(older).status == 201)
            let unmapped = try await api.assert(&older)
            #expect(unmapped.status == 200, "\(unmapped.text)")
        }
    }

    @Test("an app that sets nothing accepts development builds, old versions and missing maps, as before", arguments: [ServerBackend.sqlite])
    func noPolicyAcceptsEveryBuild(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = Self.app("carol", category: .development, version: "0.1")
            let attested = try await api.attest(app)
            #expect(attested.status == 201, "\(attested.text)")
            let development = try await api.assert(&app)
            #expect(development.status == 200, "\(development.text)")
            app.assertionExtensions = nil
            let unmapped = try await api.assert(&app)
            #expect(unmapped.status == 200, "\(unmapped.text)")
            let bare = try await api.attest(Self.app("dave", category: nil, version: nil))
            #expect(bare.status == 201, "\(bare.text)")
        }
    }

    @Test("forward-auth refuses a development build's assertion 403 with its precise code", arguments: [ServerBackend.sqlite])
    func forwardAuth(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.run(backend, extraEnvironment: Self.strictPolicy) { api, _ in
            var app = Self.app("alice", category: .appStore, version: "4.2")
            #expect(try await api.attest(app).status == 201)
            let claim = GatewayAsk(target: "/api/promos/claim")

            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "4.2")
            let refused = try await api.forwardAuth(try await api.signed(claim, by: &app))
            #expect(refused.status == 403, "a new challenge or key would be refused the same way: \(refused.text)")
            #expect(refused.header("X-AttestGuard-Status") == "422")
            #expect(refused.header("X-AttestGuard-Error") == "validation_category_not_allowed")
            #expect(refused.header("WWW-Authenticate") == nil)

            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: "4.3")
            let allowed = try await api.forwardAuth(try await api.signed(claim, by: &app))
            #expect(allowed.status == 200, "\(allowed.text)")
        }
    }

    @Test("forward-auth answers a refused build 403 and counts it as a failed check, not an error")
    func classification() {
        for code in [ErrorCode.validationCategoryNotAllowed, .bundleVersionBelowMinimum, .authenticatorExtensionsMissing] {
            let error = EngineError(.verificationFailed, code: code, "refused")
            #expect(!ForwardAuthRefusal.isCredentialFault(error), "\(code): answered 403")
            #expect(ForwardAuthRefusal.failsACheck(error))
            #expect(GatewayCheckOutcome(refusing: code, credentialFault: ForwardAuthRefusal.failsACheck(error)) == .invalid)
        }
        let outage = EngineError(.unavailable, code: .storeUnavailable, "down")
        #expect(!ForwardAuthRefusal.failsACheck(outage))
    }

    @Test("in monitor mode a score route passes a refused build, marked; a require route still refuses it", arguments: [ServerBackend.sqlite])
    func monitorMode(backend: ServerBackend) async throws {
        var environment = Self.strictPolicy
        environment["ATTESTGUARD_APPS_MAIN_MODE"] = "monitor"
        try await ForwardAuthHarness.run(backend, extraEnvironment: environment) { api, _ in
            var app = Self.app("alice", category: .appStore, version: "4.2")
            #expect(try await api.attest(app).status == 201)
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "4.2")

            let watched = try await api.forwardAuth(try await api.signed(GatewayAsk(method: "GET", target: "/api/account", body: Data()), by: &app))
            #expect(watched.status == 200, "\(watched.text)")
            #expect(watched.header("X-AttestGuard-Monitor") == "validation_category_not_allowed")

            let required = try await api.forwardAuth(try await api.signed(GatewayAsk(target: "/api/promos/claim"), by: &app))
            #expect(required.status == 403 && required.header("X-AttestGuard-Error") == "validation_category_not_allowed", "\(required.text)")
        }
    }
}

/// The build policy changed at run time through the live policy route: stored, in force at once, shown as stored
/// and effective, and cleared back to the file's.
@Suite("HTTP: the build policy in the live app policy")
struct LiveBuildPolicyTests {
    static let path = "/v1/admin/apps/\(ServerHarness.appId)/policy"

    @Test("PUT restricts the categories, raises the minimum and turns the strict mode on; DELETE lifts them", arguments: ServerBackend.available)
    func liveChange(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = BuildPolicyTests.app("erin", category: .development, version: "4.1")
            let attested = try await api.attest(app)
            #expect(attested.status == 201, "\(attested.text)")

            let change = Data(#"{"allowedCategories":{"development":["test_flight","app_store"]},"minimumBundleVersion":"4.2.0","requireAuthenticatorExtensions":true}"#.utf8)
            let stored = try await api.send(.put, Self.path, body: change, apiKey: ServerHarness.adminKey)
            #expect(stored.status == 200, "\(stored.text)")
            let effective = try #require(stored["effective"] as? [String: Any])
            #expect(effective["allowedCategories"] as? [String: [String]] == ["development": ["app_store", "test_flight"]])
            #expect(effective["minimumBundleVersion"] as? String == "4.2")
            #expect(effective["requireAuthenticatorExtensions"] as? Bool == true)
            let file = try #require(stored["file"] as? [String: Any])
            #expect(file["allowedCategories"] as? [String: [String]] == [:])
            #expect(file["minimumBundleVersion"] == nil)
            #expect(file["requireAuthenticatorExtensions"] as? Bool == false)
            #expect((stored["stored"] as? [String: Any])?["minimumBundleVersion"] as? String == "4.2")

            let refused = try await api.assert(&app)
            #expect(refused.status == 422 && refused.errorCode == "validation_category_not_allowed", "\(refused.text)")
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .testFlight, bundleVersion: "4.1")
            let old = try await api.assert(&app)
            #expect(old.status == 422 && old.errorCode == "bundle_version_below_minimum", "\(old.text)")

            // Lifting the minimum alone (0) keeps the categories; a DELETE brings the file's policy back.
            let lifted = try await api.send(.put, Self.path, body: Data(#"{"allowedCategories":{"development":["test_flight"]},"minimumBundleVersion":"0"}"#.utf8), apiKey: ServerHarness.adminKey)
            #expect((lifted["effective"] as? [String: Any])?["minimumBundleVersion"] == nil, "\(lifted.text)")
            let passes = try await api.assert(&app)
            #expect(passes.status == 200, "\(passes.text)")

            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            // The registry is the process's: other tests' changes may have counted too.
            let series = #"attestguard_app_policy_changes_total{app="\#(ServerHarness.appId)",setting="allowed_categories"} "#
            let count = metrics.split(separator: "\n").first { $0.hasPrefix(series) }.flatMap { Double($0.dropFirst(series.count)) }
            #expect((count ?? 0) >= 2, "two changes of the categories counted")

            #expect(try await api.send(.delete, Self.path, apiKey: ServerHarness.adminKey).status == 200)
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "1")
            let again = try await api.assert(&app)
            #expect(again.status == 200, "\(again.text)")
        }
    }
}

/// iOS 27-shaped assertions, under each combination of the AT and ED flags, verify end to end through
/// `POST /v1/assertions` and forward-auth, with the map read into the verdict's signals either way.
@Suite("HTTP: iOS 27 assertions under every flag combination")
struct IOS27AssertionFlagTests {
    static let rules = """
        version: 1
        rules:
          - id: testflight-build
            when: request.validation_category == "test_flight" and request.bundle_version == "7.1"
            score: 5
        """

    @Test("each flag byte, with the map and without, through POST /v1/assertions and forward-auth", arguments: [0x40, 0xC0, 0x00, 0x80] as [UInt8])
    func flags(flags: UInt8) async throws {
        try await ForwardAuthHarness.withDirectories(rules: Self.rules) { policies, rules in
            try await ServerHarness.run(.sqlite, extraEnvironment: ForwardAuthHarness.environment(policies: policies, rules: rules)) { api in
                var app = BuildPolicyTests.app("flags-\(flags)", category: .testFlight, version: "7.1")
                app.assertionFlags = flags
                #expect(try await api.attest(app).status == 201)

                let direct = try await api.assert(&app)
                #expect(direct.status == 200, "\(direct.text)")
                #expect((direct["verdict"] as? [String: Any])?["score"] as? Double == 5, "the map was read: \(direct.text)")

                let ask = GatewayAsk(target: "/api/promos/claim", user: app.userId)
                let gateway = try await api.forwardAuth(try await api.signed(ask, by: &app))
                #expect(gateway.status == 200, "\(gateway.text)")
                #expect(gateway.header("X-AttestGuard-Score") == "5", "the map was read at the gateway too")

                app.assertionExtensions = nil
                let unmapped = try await api.assert(&app)
                #expect(unmapped.status == 200, "\(unmapped.text)")
                #expect((unmapped["verdict"] as? [String: Any])?["score"] as? Double == 0)
            }
        }
    }
}
