@testable import AttestGuardEngine
import AttestGuardStore
import Foundation
import Testing

/// Stored overrides on top of the configured apps, shared by every copy of a catalog.
@Suite("Apps: run-time overrides in the catalog")
struct AppCatalogOverrideTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let news = "ABCDE12345.com.example.news"

    static func override(_ appId: String, mode: String? = nil, percent: Int? = nil, revision: Int64 = 1) -> AppPolicyOverride {
        AppPolicyOverride(appId: appId, mode: mode, attestationRequiredPercent: percent, revision: revision, updatedAt: Date(timeIntervalSince1970: 0), updatedBy: "ops")
    }

    @Test("an override changes what every copy reads; clearing it brings the configured values back")
    func applyAndClear() throws {
        let catalog = AppCatalog([AppPolicy(appId: Self.shop, attestationRequiredPercent: 10), AppPolicy(appId: Self.news, mode: .monitor)])
        let copy = catalog
        let changes = catalog.apply([Self.override(Self.shop, mode: "monitor", percent: 40)])
        #expect(changes.map(\.appId) == [Self.shop])
        #expect(changes.first?.before.mode == .enforce)
        #expect(changes.first?.after.mode == .monitor)
        #expect(try copy.policy(for: Self.shop).attestationRequiredPercent == 40)
        #expect(copy.configuredPolicy(for: Self.shop)?.attestationRequiredPercent == 10)
        #expect(copy.override(for: Self.shop)?.mode == "monitor")
        // The same overrides again change nothing.
        #expect(catalog.apply([Self.override(Self.shop, mode: "monitor", percent: 40)]).isEmpty)
        let cleared = catalog.apply([])
        #expect(cleared.map(\.appId) == [Self.shop])
        #expect(try copy.policy(for: Self.shop).mode == .enforce)
        #expect(try copy.policy(for: Self.shop).attestationRequiredPercent == 10)
        #expect(copy.override(for: Self.shop) == nil)
    }

    @Test("a stored value this build cannot read keeps the configured one; unknown apps are ignored")
    func unreadableValues() throws {
        let catalog = AppCatalog([AppPolicy(appId: Self.shop)])
        catalog.apply([Self.override(Self.shop, mode: "paranoid", percent: 250), Self.override("ABCDE12345.com.example.gone", mode: "monitor")])
        let app = try catalog.policy(for: Self.shop)
        #expect(app.mode == .enforce)
        #expect(app.attestationRequiredPercent == 100, "clamped to 0-100")
        #expect(catalog.override(for: "ABCDE12345.com.example.gone") == nil)
        #expect(catalog.all.map(\.appId) == [Self.shop])
    }
}
