import AttestVocabulary
import Hummingbird
import AttestGuardRuntime

/// Requires `Authorization: Bearer <api key>` naming a configured key with one of `scopes` (401 without a valid key,
/// 403 without any of them). Which apps the key may touch is checked by each route once it knows the app.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    /// How a missing or insufficient key is refused.
    enum Refusal {
        /// 401 `unauthorized` or 403 `forbidden`: the caller's own problem.
        case caller
        /// 500 `gateway_unauthorized`: forward-auth, where a 401 or 403 would reach the app, which must not re-attest
        /// over the gateway's misconfiguration.
        case gatewayFault
    }

    let ring: APIKeyRing
    /// The scopes that may use the routes; any one of them is enough.
    let scopes: Set<Scope>
    var refusal: Refusal = .caller

    init(ring: APIKeyRing, scope: Scope, refusal: Refusal = .caller) {
        self.init(ring: ring, scopes: [scope], refusal: refusal)
    }

    init(ring: APIKeyRing, scopes: Set<Scope>, refusal: Refusal = .caller) {
        self.ring = ring
        self.scopes = scopes
        self.refusal = refusal
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], let token = Self.bearerToken(in: header), let key = ring.key(forBearer: token)
        else {
            throw refused(.unauthorized, code: .unauthorized, "send a valid API key as Authorization: Bearer <key>")
        }
        guard !key.scopes.isDisjoint(with: scopes) else {
            let needed = scopes.map(\.rawValue).sorted().joined(separator: " or ")
            throw refused(.forbidden, code: .forbidden, "API key \(key.name) lacks the \(needed) scope")
        }
        var context = context
        context.apiKey = key
        context.logger[metadataKey: "api_key"] = .string(key.name)
        context.accessLog.apiKeyName = key.name
        return try await next(request, context)
    }

    private func refused(_ status: HTTPResponse.Status, code: ErrorCode, _ message: String) -> APIError {
        switch refusal {
        case .caller: APIError(status, code: code, message)
        case .gatewayFault: APIError(.internalServerError, code: .gatewayUnauthorized, "the gateway's API key: " + message)
        }
    }
}

extension AttestGuardRequestContext {
    /// Throws 403 unless the authenticated key may touch `appId`.
    func requireAccess(to appId: String) throws {
        guard let apiKey, apiKey.allows(app: appId) else {
            throw APIError(.forbidden, code: .forbidden, "this API key may not use app \(appId)")
        }
    }

    /// Refuses (403) a key limited to some apps: `what` changes every app's (a rule or gateway-policy reload).
    func requireAccessToEveryApp(for what: String) throws {
        guard let apiKey, apiKey.apps == nil else {
            throw APIError(.forbidden, code: .forbidden, "\(what) changes every app's: it needs an admin key for every app")
        }
    }
}

extension APIKeyMiddleware {
    /// The token of an `Authorization: Bearer <token>` value (the scheme in any case), `nil` for any other form or an
    /// empty token. Read by bytes: a Character view would run grapheme breaking and a lowercased copy per request.
    static func bearerToken(in header: String) -> String? {
        let bytes = header.utf8
        var index = bytes.startIndex
        for expected in "bearer ".utf8 {
            guard index != bytes.endIndex else { return nil }
            let byte = bytes[index]
            // ASCII letters match either case; the space matches only itself.
            guard byte == expected || (expected != UInt8(ascii: " ") && byte == expected - 0x20) else { return nil }
            bytes.formIndex(after: &index)
        }
        guard index != bytes.endIndex else { return nil }
        return String(header[index...])
    }
}
