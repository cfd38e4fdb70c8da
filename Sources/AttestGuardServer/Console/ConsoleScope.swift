import AttestGuardEngine
import Foundation
import AttestGuardRuntime

/// Whose console page this is and what it shows: the signed-in API key, the apps it may see (the configured apps
/// its app list allows), the app picked (`app`, the first allowed by default) and the range (`range`, 24 hours by
/// default).
struct ConsoleScope: Sendable {
    let key: APIKey
    let apps: [String]
    let appId: String
    let range: ConsoleRange

    /// - Throws: 403 `forbidden` for an app the key may not see or a key that may see none; 404 `app_not_found` for
    ///   an app not configured; 400 `invalid_field` for an unknown range.
    init(key: APIKey, query: QueryParameters, catalog: AppCatalog) throws {
        self.key = key
        apps = catalog.all.map(\.appId).filter { key.allows(app: $0) }
        if let text = query["range"] {
            guard let range = ConsoleRange(rawValue: text) else {
                throw APIError.badRequest(.invalidField, "range must be one of \(ConsoleRange.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.range = range
        } else {
            range = .standard
        }
        if let requested = query["app"] {
            _ = try catalog.policy(for: requested)
            guard key.allows(app: requested) else {
                throw APIError(.forbidden, code: .forbidden, "this API key may not use app \(requested)")
            }
            appId = requested
        } else {
            guard let first = apps.first else {
                throw APIError(.forbidden, code: .forbidden, "this API key may use none of the configured apps")
            }
            appId = first
        }
    }

    /// The scope of a signed-in console request, and whether its key may change things (`analyst:write` or `admin`).
    static func signedIn(
        _ query: QueryParameters, _ context: AttestGuardRequestContext, catalog: AppCatalog
    ) throws -> (scope: ConsoleScope, canChange: Bool) {
        guard let key = context.apiKey else { throw APIError(.unauthorized, code: .unauthorized, "sign in at /console/login") }
        return (try ConsoleScope(key: key, query: query, catalog: catalog), !key.scopes.isDisjoint(with: [.analystWrite, .admin]))
    }
}
