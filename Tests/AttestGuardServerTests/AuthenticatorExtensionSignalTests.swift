import AttestCore
import AttestGuardWire
import AttestTestSupport
import DeviceSimulator
import Foundation
import HTTPTypes
import RiskRules
import Testing

/// iOS 27's extension map reaches the rules: an attestation's and an assertion's validation category and bundle
/// version are `request.validation_category` and `request.bundle_version`, compared with `version_below`; the OS
/// version, category and bundle version the key was attested with are `key.os_version`, `key.validation_category`
/// and `key.bundle_version`, and the key routes show the last two.
@Suite("HTTP: iOS 27's validation category and bundle version as signals")
struct AuthenticatorExtensionSignalTests {
    static let rules = """
        version: 1
        rules:
          - id: development-build
            when: request.validation_category == "development"
            score: 10
          - id: old-build
            when: version_below(request.bundle_version, "4.10")
            score: 1
          - id: no-map
            when: missing(request.validation_category) and missing(request.bundle_version)
            score: 100
          - id: attested-on-ios-27
            when: key.os_version == "27.0"
            score: 1000
          - id: attested-from-app-store-build-1
            when: key.validation_category == "app_store" and key.bundle_version == "1"
            score: 10000
        """

    static func score(_ reply: APIClient.Reply) -> Double? {
        (reply["verdict"] as? [String: Any])?["score"] as? Double
    }

    @Test("the attestation's and each assertion's map are read by the rules", arguments: ServerBackend.available)
    func mapValuesAreSignals(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, rules: Self.rules) { api in
            // The simulated device attests as an App Store build, bundle version 1, on iOS 27.0.
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            let challenge = try await api.challenge(purpose: "attestation", appId: app.app.appId, userId: app.userId)
            let attestation = try app.attestation(challenge: challenge, at: api.clock.now())
            let attested = try await api.post("/v1/attestations", attestation)
            #expect(attested.status == 201, "\(attested.text)")
            #expect(Self.score(attested) == 11001, "old-build (1 < 4.10), the key's OS version and build")
            // The same object again is answered from the registry, unverified: its map is the one the key kept.
            let again = try await api.post("/v1/attestations", attestation)
            #expect(again["idempotent"] as? Bool == true, "\(again.text)")
            #expect(Self.score(again) == 11001)

            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "4.9")
            let development = try await api.assert(&app)
            #expect(development.status == 200, "\(development.text)")
            #expect(Self.score(development) == 11011, "development, 4.9 below 4.10; the key still attested from the App Store build")

            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: "4.10.0")
            let current = try await api.assert(&app)
            #expect(Self.score(current) == 11000, "an App Store build at 4.10.0 is not below 4.10")

            app.assertionExtensions = nil
            let beforeIOS27 = try await api.assert(&app)
            #expect(Self.score(beforeIOS27) == 11100, "no map: both request values missing")

            let key = try await api.send(.get, "/v1/apps/\(ServerHarness.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))")
            #expect(key.status == 200, "\(key.text)")
            #expect(key["validationCategory"] as? String == "app_store")
            #expect(key["bundleVersion"] as? String == "1")
        }
    }

    @Test("the decision log keeps the build signals though no rule reads them, for backtests of rules that will", arguments: [ServerBackend.sqlite])
    func decisionLogKeepsTheBuild(backend: ServerBackend) async throws {
        let rules = "version: 1\nrules:\n  - id: retired\n    when: key.status == \"revoked\"\n    decide: deny\n"
        try await ServerHarness.run(backend, extraEnvironment: AnalystScopeTests.environment, rules: rules) { api in
            var app = SimulatedApps.make(user: "logged", device: "logged-phone")
            #expect(try await api.attest(app).status == 201)
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .testFlight, bundleVersion: "4.3")
            #expect(try await api.assert(&app).status == 200)
            try await HistoryRouteTests.flush(api)
            let reply = try await HistoryRouteTests.decisions(api, "userId=logged")
            let entries = (reply["decisions"] as? [[String: Any]] ?? []).compactMap { $0["signals"] as? [String: Any] }
            #expect(entries.count == 2, "\(reply.text)")
            let assertion = try #require(entries.first, "newest first: the assertion")
            #expect(assertion["request.validation_category"] as? String == "test_flight")
            #expect(assertion["request.bundle_version"] as? String == "4.3")
            #expect(assertion["key.validation_category"] as? String == "app_store")
            #expect(assertion["key.bundle_version"] as? String == "1")
            #expect(assertion["key.os_version"] as? String == "27.0")

            // A backtest of a rule the live set never had: the logged snapshot replays the build into it.
            let candidate = try RuleSetLoader.compile(documents: [("rules.yaml", """
                version: 1
                rules:
                  - id: testflight-below-5
                    when: request.validation_category == "test_flight" and version_below(request.bundle_version, "5")
                    decide: review
                """)]) { _ in "" }
            let snapshot = String(decoding: try JSONSerialization.data(withJSONObject: assertion), as: UTF8.self)
            let replayed = try #require(candidate.evaluate(snapshot: snapshot, decidedAt: api.clock.now()))
            #expect(replayed.decision == .review)
        }
    }

    @Test("a signed map of another shape is 422 malformed_authenticator_extensions and spends nothing", arguments: [ServerBackend.sqlite])
    func malformedMapIsRefused(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, rules: Self.rules) { api in
            var app = SimulatedApps.make(user: "bob", device: "bob-phone")
            #expect(try await api.attest(app).status == 201)
            app.assertionExtensions = AppleAuthenticatorExtensions(validationCategory: .appStore, bundleVersion: String(repeating: "9", count: 65))
            let refused = try await api.assert(&app)
            #expect(refused.status == 422, "\(refused.text)")
            #expect(refused.errorCode == "malformed_authenticator_extensions")
            let stored = try #require(try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId)))
            #expect(stored.counter == 0, "the counter did not advance")
        }
    }
}
