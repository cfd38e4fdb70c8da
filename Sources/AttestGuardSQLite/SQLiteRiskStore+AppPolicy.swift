import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func appPolicyOverrides() async throws -> [AppPolicyOverride] {
        try await query("SELECT * FROM app_policy_overrides ORDER BY app_id").map(AppPolicyOverride.init(sqlite:))
    }

    public func replaceAppPolicyOverride(_ override: AppPolicyOverride, expectedRevision: Int64) async throws -> Bool {
        let written = try await query(
            """
            INSERT INTO app_policy_overrides AS stored
                (app_id, mode, attestation_required_percent, default_protection, route_protections, allowed_categories,
                 minimum_bundle_version, require_authenticator_extensions, revision, updated_at, updated_by)
            VALUES (?1, ?2, ?3, ?4, ?5, ?10, ?11, ?12, ?6, ?7, ?8)
            ON CONFLICT (app_id) DO UPDATE SET
                mode = excluded.mode, attestation_required_percent = excluded.attestation_required_percent,
                default_protection = excluded.default_protection, route_protections = excluded.route_protections,
                allowed_categories = excluded.allowed_categories, minimum_bundle_version = excluded.minimum_bundle_version,
                require_authenticator_extensions = excluded.require_authenticator_extensions,
                revision = excluded.revision, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            WHERE stored.revision = ?9
            RETURNING 1
            """,
            [
                .text(override.appId), SQLiteValues.bind(override.mode), override.attestationRequiredPercent.map { .integer($0) } ?? .null,
                SQLiteValues.bind(override.defaultProtection), .text(override.routeProtectionsJSON), .integer(Int(expectedRevision + 1)),
                SQLiteValues.bind(override.updatedAt), .text(override.updatedBy), .integer(Int(expectedRevision)),
                SQLiteValues.bind(override.allowedCategoriesJSON), SQLiteValues.bind(override.minimumBundleVersion),
                SQLiteValues.bind(override.requiresAuthenticatorExtensions),
            ]
        )
        return written.count == 1
    }
}

extension AppPolicyOverride {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "app_policy_overrides")
        self.init(
            appId: try reader.text("app_id"), mode: try reader.optionalText("mode"),
            attestationRequiredPercent: try reader.optionalInteger("attestation_required_percent").map { Int($0) },
            defaultProtection: try reader.optionalText("default_protection"),
            routeProtections: Self.routeProtections(json: try reader.text("route_protections")),
            allowedCategories: Self.allowedCategories(json: try reader.optionalText("allowed_categories")),
            minimumBundleVersion: try reader.optionalText("minimum_bundle_version"),
            requiresAuthenticatorExtensions: try reader.optionalInteger("require_authenticator_extensions").map { $0 != 0 },
            revision: try reader.integer("revision"), updatedAt: try reader.date("updated_at"), updatedBy: try reader.text("updated_by")
        )
    }
}
