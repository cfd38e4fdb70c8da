import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func appPolicyOverrides() async throws -> [AppPolicyOverride] {
        try await rows("SELECT * FROM app_policy_overrides ORDER BY app_id").map(AppPolicyOverride.init(postgres:))
    }

    public func replaceAppPolicyOverride(_ override: AppPolicyOverride, expectedRevision: Int64) async throws -> Bool {
        let percent = override.attestationRequiredPercent.map { Int32(clamping: $0) }
        let written = try await rows(
            """
            INSERT INTO app_policy_overrides AS stored
                (app_id, mode, attestation_required_percent, default_protection, route_protections, allowed_categories,
                 minimum_bundle_version, require_authenticator_extensions, revision, updated_at, updated_by)
            VALUES (\(override.appId), \(override.mode), \(percent), \(override.defaultProtection), \(override.routeProtectionsJSON),
                \(override.allowedCategoriesJSON), \(override.minimumBundleVersion), \(override.requiresAuthenticatorExtensions),
                \(expectedRevision + 1), \(override.updatedAt), \(override.updatedBy))
            ON CONFLICT (app_id) DO UPDATE SET
                mode = excluded.mode, attestation_required_percent = excluded.attestation_required_percent,
                default_protection = excluded.default_protection, route_protections = excluded.route_protections,
                allowed_categories = excluded.allowed_categories, minimum_bundle_version = excluded.minimum_bundle_version,
                require_authenticator_extensions = excluded.require_authenticator_extensions,
                revision = excluded.revision, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            WHERE stored.revision = \(expectedRevision)
            RETURNING 1
            """
        )
        return written.count == 1
    }
}

extension AppPolicyOverride {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "app_policy_overrides")
        self.init(
            appId: try read("app_id"), mode: try read("mode"),
            attestationRequiredPercent: try read("attestation_required_percent", as: Int32?.self).map(Int.init),
            defaultProtection: try read("default_protection"),
            routeProtections: Self.routeProtections(json: try read("route_protections")),
            allowedCategories: Self.allowedCategories(json: try read("allowed_categories")),
            minimumBundleVersion: try read("minimum_bundle_version"),
            requiresAuthenticatorExtensions: try read("require_authenticator_extensions"),
            revision: try read("revision"), updatedAt: try read("updated_at"), updatedBy: try read("updated_by")
        )
    }
}
