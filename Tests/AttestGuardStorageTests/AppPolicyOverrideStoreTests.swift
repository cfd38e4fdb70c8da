import AttestTestSupport
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("App policy overrides in the store")
struct AppPolicyOverrideStoreTests {
    static let appId = "ABCDE12345.com.example.app"

    static func override(revision: Int64, mode: String? = nil, percent: Int? = nil, routes: [String: String] = [:], by key: String = "ops")
        -> AppPolicyOverride
    {
        AppPolicyOverride(
            appId: appId, mode: mode, attestationRequiredPercent: percent, defaultProtection: nil, routeProtections: routes,
            revision: revision, updatedAt: StoreFixtures.now.addingTimeInterval(TimeInterval(revision)), updatedBy: key
        )
    }

    @Test("a change lands only on the revision it read; every value reads back as written", arguments: StoreBackend.available)
    func revisions(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.appPolicyOverrides().isEmpty)
            let first = Self.override(revision: 1, mode: "monitor", percent: 25, routes: ["/api/promos/claim": "score", "/a/**": "open"])
            #expect(try await store.replaceAppPolicyOverride(first, expectedRevision: 0))
            #expect(try await store.appPolicyOverrides() == [first])
            // A second writer that also read "no row" loses, and changes nothing.
            #expect(try await !store.replaceAppPolicyOverride(Self.override(revision: 1, mode: "enforce", by: "other"), expectedRevision: 0))
            let second = Self.override(revision: 2, percent: 50)
            #expect(try await !store.replaceAppPolicyOverride(second, expectedRevision: 2))
            #expect(try await store.replaceAppPolicyOverride(second, expectedRevision: 1))
            #expect(try await store.appPolicyOverrides() == [second])
        }
    }

    @Test("an empty override clears the app's values at the revision it read, and the revision never goes back", arguments: StoreBackend.available)
    func clearing(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            #expect(try await store.replaceAppPolicyOverride(Self.override(revision: 1, mode: "monitor"), expectedRevision: 0))
            #expect(try await !store.replaceAppPolicyOverride(Self.override(revision: 6), expectedRevision: 5))
            #expect(try await store.appPolicyOverrides().count == 1)
            #expect(try await store.replaceAppPolicyOverride(Self.override(revision: 2), expectedRevision: 1))
            let cleared = try #require(try await store.appPolicyOverrides().first)
            #expect(cleared.isEmpty && cleared.revision == 2)
            // The revisions a stale writer read (none, or 1) are gone for good: If-Match names one state ever.
            #expect(try await !store.replaceAppPolicyOverride(Self.override(revision: 1, mode: "enforce"), expectedRevision: 0))
            #expect(try await !store.replaceAppPolicyOverride(Self.override(revision: 2, mode: "enforce"), expectedRevision: 1))
            #expect(try await store.replaceAppPolicyOverride(Self.override(revision: 3, mode: "enforce"), expectedRevision: 2))
            #expect(try await store.appPolicyOverrides().first?.revision == 3)
        }
    }

    @Test("the build policy's values read back as written, and a false strict mode stays false", arguments: StoreBackend.available)
    func buildPolicy(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            var first = Self.override(revision: 1)
            first.allowedCategories = ["production": ["app_store", "test_flight"], "development": ["development"]]
            first.minimumBundleVersion = "4.2"
            first.requiresAuthenticatorExtensions = true
            #expect(try await store.replaceAppPolicyOverride(first, expectedRevision: 0))
            #expect(try await store.appPolicyOverrides() == [first])
            var second = Self.override(revision: 2)
            second.allowedCategories = [:]
            second.requiresAuthenticatorExtensions = false
            #expect(!second.isEmpty)
            #expect(try await store.replaceAppPolicyOverride(second, expectedRevision: 1))
            #expect(try await store.appPolicyOverrides() == [second])
        }
    }

    @Test("allowed categories are stored as a JSON object with sorted keys and names")
    func categoryText() {
        var override = Self.override(revision: 1)
        #expect(override.allowedCategoriesJSON == nil)
        override.allowedCategories = ["production": ["test_flight", "app_store", "app_store"], "development": ["development"]]
        #expect(override.allowedCategoriesJSON == #"{"development":["development"],"production":["app_store","test_flight"]}"#)
        #expect(AppPolicyOverride.allowedCategories(json: override.allowedCategoriesJSON) == ["development": ["development"], "production": ["app_store", "test_flight"]])
        #expect(AppPolicyOverride.allowedCategories(json: #"{"production":"app_store"}"#) == nil)
        #expect(AppPolicyOverride.allowedCategories(json: nil) == nil)
    }

    @Test("route protections are stored as a JSON object with sorted keys")
    func routeText() {
        let override = Self.override(revision: 1, routes: ["/b": "open", "/a": "score"])
        #expect(override.routeProtectionsJSON == #"{"/a":"score","/b":"open"}"#)
        #expect(AppPolicyOverride.routeProtections(json: override.routeProtectionsJSON) == ["/a": "score", "/b": "open"])
        #expect(AppPolicyOverride.routeProtections(json: "[1]").isEmpty)
    }
}
