import AttestGuardEngine
import AttestGuardWire
import Foundation
import Hummingbird

/// `GET /v1/session-tokens/jwks`: the public keys session tokens may be signed with, as a JSON Web Key Set, for a
/// gateway or backend that verifies tokens itself. Public keys only, so no API key is asked; cacheable for five
/// minutes (a rotated-in key is published before it signs, as the contract asks of operators). A server without a
/// signing key answers 404 `session_tokens_not_enabled`.
struct SessionTokenRoutes {
    let engine: Engine

    /// How long a gateway may keep the document.
    static let maxAgeSeconds = 300

    func register(on router: Router<AttestGuardRequestContext>) {
        router.get("v1/session-tokens/jwks", use: keys)
    }

    @Sendable func keys(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        guard let service = engine.sessionTokens.service else {
            throw APIError(.notFound, code: .sessionTokensNotEnabled, "the server has no session token signing key (sessionTokens.signingKeyFile)")
        }
        var response = try JSONResponse.make(service.jwks, status: .ok)
        response.headers[.cacheControl] = "public, max-age=\(Self.maxAgeSeconds)"
        return response
    }
}
