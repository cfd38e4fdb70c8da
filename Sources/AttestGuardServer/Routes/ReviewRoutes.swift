import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Hummingbird
import AttestGuardRuntime

/// Each app's review queue (contract: "Review queue"), limited to the key's apps. Reads (`GET
/// /v1/apps/{appId}/review-items`, `GET .../review-items/{itemId}`) take scope `analyst`, `analyst:write` or `admin`;
/// a claim (`POST .../{itemId}/claim`) and a decision (`POST .../{itemId}/decision`) take `analyst:write` or `admin`,
/// and name the key as the analyst; a decision's actions on the item's key take `admin`.
struct ReviewRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let reading = router.group("v1/apps/:appId/review-items").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analyst, .analystWrite, .admin]))
        reading.get(use: items)
        reading.get(":itemId", use: item)
        let writing = router.group("v1/apps/:appId/review-items").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analystWrite, .admin]))
        writing.post(":itemId/claim", use: claim)
        writing.post(":itemId/decision", use: decide)
    }

    /// `?status=` (`pending` by default; `open`, `claimed`, `decided`, `approved`, `rejected`, `expired`, `all`),
    /// `?limit=` (1-500, default 50), `?cursor=` (a page's `next`).
    @Sendable func items(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let appId = try Self.appId(context)
        try context.requireAccess(to: appId)
        let query = try QueryParameters(request.uri.query)
        let filterName = query["status"] ?? ReviewItemFilter.pending.rawValue
        guard let filter = ReviewItemFilter(rawValue: filterName) else {
            throw APIError.badRequest(.invalidField, "status is \(ReviewItemFilter.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let cursor = try query["cursor"].map { text in
            guard Self.isDecimal(text), text.utf8.count <= 19, let id = Int64(text) else { throw APIError.badRequest(.invalidField, "cursor is a page's next value") }
            return id
        }
        let page = try await engine.reviews.items(appId: appId, filter: filter, cursor: cursor, limit: try query.integer("limit") ?? 50)
        return try JSONResponse.make(
            ReviewItemsBody(items: page.items.map { ReviewItemBody($0, at: page.at) }, next: page.next.map(String.init)), status: .ok
        )
    }

    @Sendable func item(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (appId, id) = try Self.itemPath(context)
        try context.requireAccess(to: appId)
        let item = try await engine.reviews.item(appId: appId, id: id)
        return try JSONResponse.make(ReviewItemBody(item, at: engine.clock.now()), status: .ok)
    }

    @Sendable func claim(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (appId, id) = try Self.itemPath(context)
        try context.requireAccess(to: appId)
        let item = try await engine.reviews.claim(appId: appId, id: id, analyst: Self.analyst(context))
        return try JSONResponse.make(ReviewItemBody(item, at: engine.clock.now()), status: .ok)
    }

    /// `{decision: approve|reject, note?, actions?: [revoke_key, set_devicecheck_bit1]}`.
    @Sendable func decide(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (appId, id) = try Self.itemPath(context)
        try context.requireAccess(to: appId)
        let asked = try await body.decode(ReviewDecisionRequestBody.self, from: request)
        guard let decision = ReviewDecision(rawValue: asked.decision) else {
            throw APIError.badRequest(.invalidField, "decision is approve or reject")
        }
        let followUps = try (asked.actions ?? []).enumerated().map { position, name in
            guard let followUp = ReviewFollowUp(rawValue: name) else {
                throw APIError.badRequest(.invalidField, "actions.\(position) is \(ReviewFollowUp.allCases.map(\.rawValue).joined(separator: " or "))")
            }
            return followUp
        }
        try Self.requireActionScope(context.apiKey, for: followUps)
        let item = try await engine.reviews.decide(
            appId: appId, id: id, analyst: Self.analyst(context), decision: decision, note: asked.note ?? "", followUps: followUps
        )
        return try JSONResponse.make(ReviewItemBody(item, at: engine.clock.now()), status: .ok)
    }

    /// Whether `key` may ask a decision for `followUps`: acting on a key (revoking it, setting its DeviceCheck bit)
    /// takes `admin`, as the key and DeviceCheck routes do; `analyst:write` decides and labels.
    static func mayAct(_ key: APIKey?) -> Bool {
        key?.scopes.contains(.admin) == true
    }

    /// Refuses (403) follow-ups asked by a key that may not act on keys.
    static func requireActionScope(_ key: APIKey?, for followUps: [ReviewFollowUp]) throws {
        guard followUps.isEmpty || mayAct(key) else {
            throw APIError(.forbidden, code: .forbidden, "actions on the item's key take the admin scope; analyst:write decides and labels")
        }
    }

    /// The app and item of the path: the app percent-decoded, the item a positive decimal id.
    static func itemPath(_ context: AttestGuardRequestContext) throws -> (appId: String, id: Int64) {
        (try appId(context), try itemId(context))
    }

    /// The path's item id: a positive decimal number, else 400 `invalid_field`.
    static func itemId(_ context: AttestGuardRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("itemId"), isDecimal(text), let id = Int64(text), id > 0 else {
            throw APIError.badRequest(.invalidField, "an item id is a positive decimal number")
        }
        return id
    }

    /// Digits only: `Int64` alone would take `+5` and `-0`.
    private static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func appId(_ context: AttestGuardRequestContext) throws -> String {
        guard let raw = context.parameters.get("appId") else { throw APIError.badRequest(.missingField, "the path needs an app id") }
        return raw.removingPercentEncoding ?? raw
    }

    private static func analyst(_ context: AttestGuardRequestContext) -> String {
        context.apiKey?.name ?? "-"
    }
}
