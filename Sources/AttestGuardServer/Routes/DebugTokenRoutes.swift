import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Foundation
import Hummingbird
import AttestGuardRuntime

/// An app's debug tokens (contract: "Debug tokens"), limited to the key's apps: `POST
/// /v1/admin/apps/{appId}/debug-tokens` (scope `admin`) makes one and answers its secret this once;
/// `GET .../debug-tokens` (scopes `admin` and `analyst`) lists them, newest first, never with a secret;
/// `POST .../debug-tokens/{id}/revoke` (scope `admin`) revokes one for good. An app that accepts none
/// (`apps.<app>.debugTokens.enabled`) answers 404 `debug_tokens_not_enabled` to all three. Making and revoking are
/// logged at info with the key's name, the token's id and its name.
struct DebugTokenRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/apps/:appId/debug-tokens").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin, .analyst])).get(use: list)
        let admin = router.group("v1/admin/apps/:appId/debug-tokens").add(middleware: APIKeyMiddleware(ring: keys, scope: .admin))
        admin.post(use: create)
        admin.post(":debugTokenId/revoke", use: revoke)
    }

    @Sendable func create(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let appId = try acceptingApp(context)
        let asked = try await body.decode(DebugTokenCreateBody.self, from: request)
        let created = try await engine.debugTokens.create(
            appId: appId, name: try Identifier(asked.name, field: "name"), lifetimeDays: asked.lifetimeDays, createdBy: context.apiKey?.name ?? "-"
        )
        context.logger.info("debug token made", metadata: [
            "app": .string(appId), "debug_token": .string(created.token.id), "name": .string(created.token.name),
            "expires_at": .string(RFC3339.format(created.token.expiresAt)),
        ])
        let shown = DebugTokenCreatedBody(token: DebugTokenBody(created.token, now: engine.clock.now()), secret: created.secret)
        var response = try JSONResponse.make(shown, status: .created)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func list(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let appId = try acceptingApp(context)
        let tokens = try await engine.debugTokens.list(appId: appId)
        let now = engine.clock.now()
        return try JSONResponse.make(DebugTokenListBody(tokens: tokens.map { DebugTokenBody($0, now: now) }), status: .ok)
    }

    @Sendable func revoke(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let appId = try acceptingApp(context)
        let token = try await engine.debugTokens.revoke(appId: appId, id: context.parameters.get("debugTokenId") ?? "")
        context.logger.info("debug token revoked", metadata: ["app": .string(appId), "debug_token": .string(token.id), "name": .string(token.name)])
        return try JSONResponse.make(DebugTokenBody(token, now: engine.clock.now()), status: .ok)
    }

    /// The app the path names, if the key may use it and it accepts debug tokens.
    private func acceptingApp(_ context: AttestGuardRequestContext) throws -> String {
        let raw = context.parameters.get("appId") ?? ""
        let appId = raw.removingPercentEncoding ?? raw
        try context.requireAccess(to: appId)
        try engine.debugTokens.acceptance(of: appId)
        return appId
    }
}
