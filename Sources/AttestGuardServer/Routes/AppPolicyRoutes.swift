import AttestGuardEngine
import Foundation
import GatewayPolicy
import HTTPTypes
import Hummingbird
import AttestVocabulary
import AttestGuardRuntime

/// An app's policy changed at run time: `GET /v1/admin/apps/{appId}/policy` (scopes `admin` and `analyst`) shows the
/// file's values, the stored ones and those in force; `PUT` (scope `admin`) stores values that override the file's,
/// `DELETE` (scope `admin`) clears them. All three are limited to the key's apps. A change is in force in this
/// process at once and in every process sharing the store within `apps.policyReloadSeconds`; it is logged at info
/// with the key's name and counted in `attestguard_app_policy_changes_total{app,setting}`. The `ETag` is the stored
/// revision; a `PUT` or `DELETE` with `If-Match` is refused with 412 `precondition_failed` when another change came
/// first. Without `If-Match` the last change wins. An app with an attestation rollout ramp shows it as `ramp`
/// (``AttestationRampRoutes``: a stored percentage pins the ramp, `POST .../policy/ramp/resume` resumes a paused one).
struct AppPolicyRoutes {
    let engine: Engine
    let changes: AppPolicyChanges
    let gateway: GatewayPolicyReloader
    let body: JSONBody
    let reloadInterval: Duration

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/apps/:appId/policy").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin, .analyst])).get(use: show)
        let admin = router.group("v1/admin/apps/:appId/policy").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin))
        admin.put(use: replace)
        admin.delete(use: clear)
        AttestationRampRoutes(policy: self).register(on: admin)
        AppPolicyChanges.publishZeros(apps: engine.apps.all.map(\.appId))
    }

    @Sendable func show(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let configured = try configuredApp(context)
        return try response(for: configured)
    }

    @Sendable func replace(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let configured = try configuredApp(context)
        let change = try await body.decode(AppPolicyOverrideBody.self, from: request)
        try checkRoutes(change, app: configured)
        let values = AppPolicyChanges.Values(
            mode: change.mode, attestationRequiredPercent: change.attestationRequiredPercent,
            defaultProtection: change.defaultProtection?.rawValue, routeProtections: change.routes.mapValues(\.rawValue),
            allowedCategories: change.allowedCategories, minimumBundleVersion: change.minimumBundleVersion,
            requiresAuthenticatorExtensions: change.requireAuthenticatorExtensions
        )
        try await changes.replace(
            appId: configured.appId, with: values, expectedRevision: try Self.ifMatch(request), by: context.apiKey?.name ?? "-", logger: context.logger
        )
        return try response(for: configured)
    }

    @Sendable func clear(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let configured = try configuredApp(context)
        try await changes.replace(
            appId: configured.appId, with: nil, expectedRevision: try Self.ifMatch(request), by: context.apiKey?.name ?? "-", logger: context.logger
        )
        return try response(for: configured)
    }

    func response(for configured: AppPolicy) throws -> Response {
        let effective = (try? engine.apps.policy(for: configured.appId)) ?? configured
        let override = engine.apps.override(for: configured.appId)
        // A cleared policy is stored as an empty row (its revision goes on), shown as no stored change.
        let stored = override.flatMap { $0.isEmpty ? nil : $0 }.map {
            AppPolicyBody.Stored(
                mode: $0.mode, attestationRequiredPercent: $0.attestationRequiredPercent, defaultProtection: $0.defaultProtection,
                routes: $0.routeProtections, allowedCategories: $0.allowedCategories, minimumBundleVersion: $0.minimumBundleVersion,
                requireAuthenticatorExtensions: $0.requiresAuthenticatorExtensions, revision: $0.revision, updatedAt: $0.updatedAt,
                updatedBy: $0.updatedBy
            )
        }
        var body = AppPolicyBody(
            configured: configured, effective: effective, stored: stored,
            changes: override.map { RouteProtectionOverrides(defaultProtection: $0.defaultProtection, routes: $0.routeProtections) },
            gateway: gateway.policies?.files(of: configured.appId) ?? [], reloadSeconds: Int(reloadInterval.components.seconds)
        )
        body.ramp = engine.apps.rampReport(for: configured, now: engine.clock.now()).map(AppPolicyBody.Ramp.init)
        var response = try JSONResponse.make(body, status: .ok)
        response.headers[.eTag] = "\"\(override?.revision ?? 0)\""
        return response
    }

    /// The configured app the path names, if the key may use it.
    func configuredApp(_ context: AttestGuardRequestContext) throws -> AppPolicy {
        let raw = context.parameters.get("appId") ?? ""
        let appId = raw.removingPercentEncoding ?? raw
        try context.requireAccess(to: appId)
        _ = try engine.apps.policy(for: appId)
        guard let configured = engine.apps.configuredPolicy(for: appId) else {
            throw APIError(.notFound, code: .appNotFound, "no app \(appId) is configured")
        }
        return configured
    }

    /// Every route path a change names is a route of the app's gateway policy files, and `token` is set only for an
    /// app that issues session tokens.
    private func checkRoutes(_ change: AppPolicyOverrideBody, app: AppPolicy) throws {
        let appId = app.appId
        if app.sessionTokenLifetime == nil, change.defaultProtection == .token || change.routes.values.contains(.token) {
            throw APIError.badRequest(.invalidField, "app \(appId) issues no session tokens (apps.<app>.sessionTokens.enabled), so no route of it may be token")
        }
        let files = gateway.policies?.files(of: appId) ?? []
        if change.defaultProtection != nil, files.isEmpty {
            throw APIError.badRequest(.invalidField, "defaultProtection: app \(appId) has no gateway policy file")
        }
        let paths = Set(files.flatMap { $0.routes.map(\.path.text) })
        if let unknown = change.routes.keys.sorted().first(where: { !paths.contains($0) }) {
            throw APIError.badRequest(.invalidField, "routes: no route of app \(appId)'s gateway policy has the path \(unknown.prefix(256))")
        }
    }

    /// The revision `If-Match` names (`"3"`, or `*` for any), if the header is there.
    static func ifMatch(_ request: Request) throws -> Int64? {
        guard let value = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), value != "*" else { return nil }
        let digits = value.hasPrefix("W/") ? String(value.dropFirst(2)) : value
        guard digits.count >= 3, digits.first == "\"", digits.last == "\"", let revision = Int64(digits.dropFirst().dropLast()), revision >= 0 else {
            throw APIError.badRequest(.invalidField, "If-Match is the ETag of GET .../policy, a quoted revision such as \"3\"")
        }
        return revision
    }
}
