import Hummingbird

/// Requires `Authorization: Bearer <api key>` naming a configured key with `scope` (401 without a valid key,
/// 403 without the scope). Which apps the key may touch is checked by each route once it knows the app.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext
    let ring: APIKeyRing
    let scope: Scope

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer ", let key = ring.key(forBearer: String(header.dropFirst(7)))
        else {
            throw APIError(.unauthorized, code: .unauthorized, "send a valid API key as Authorization: Bearer <key>")
        }
        guard key.scopes.contains(scope) else {
            throw APIError(.forbidden, code: .forbidden, "API key \(key.name) lacks the \(scope.rawValue) scope")
        }
        var context = context
        context.apiKey = key
        context.logger[metadataKey: "api_key"] = .string(key.name)
        return try await next(request, context)
    }
}

extension AttestGuardRequestContext {
    /// Throws 403 unless the authenticated key may touch `appId`.
    func requireAccess(to appId: String) throws {
        guard let apiKey, apiKey.allows(app: appId) else {
            throw APIError(.forbidden, code: .forbidden, "this API key may not use app \(appId)")
        }
    }
}
