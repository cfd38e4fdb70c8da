import AttestGuardEngine
import AttestGuardWire
import Hummingbird
import AttestGuardRuntime

/// `GET /v1/admin/rules/actions` (contract: "Rule actions"): the last run of each rule action on each target, newest
/// first, for analysts and operators watching what the rules did. Scope `analyst`, `analyst:write` or `admin`;
/// `?appId=` reads one app's runs (a key for that app), without it every app's (a key for every app).
struct RuleActionRoutes {
    let engine: Engine

    /// The most runs one read answers.
    static let listingLimit = 1_000

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        router.group("v1/admin/rules/actions").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analyst, .analystWrite, .admin]))
            .get(use: runs)
    }

    @Sendable func runs(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let query = try QueryParameters(request.uri.query)
        let appId = query["appId"]
        if let appId {
            _ = try engine.apps.policy(for: appId)
            try context.requireAccess(to: appId)
        } else {
            try context.requireAccessToEveryApp(for: "a read of every app's rule actions")
        }
        let limit = try query.integer("limit") ?? 100
        guard (1...Self.listingLimit).contains(limit) else {
            throw APIError.badRequest(.invalidField, "limit is 1 to \(Self.listingLimit)")
        }
        let runs = try await engine.ruleActions.runs(appId: appId, limit: limit)
        return try JSONResponse.make(RuleActionRunsBody(runs: runs.map(RuleActionRunBody.init)), status: .ok)
    }
}
