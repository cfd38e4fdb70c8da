import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Hummingbird
import AttestGuardRuntime

/// The webhook outbox's delivery log (contract: "Webhooks"), for operators: `GET /v1/webhooks/events`, `GET
/// /v1/webhooks/events/{id}` and `POST /v1/webhooks/events/{id}/redeliver`, scope `admin`. A key limited to some apps
/// reads and redelivers its apps' events only (it names one with `?appId=` to list); list changes, which belong to
/// no app, take a key for every app.
struct WebhookRoutes {
    let engine: Engine

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let group = router.group("v1/webhooks/events").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.admin]))
        group.get(use: events)
        group.get(":eventId", use: event)
        group.post(":eventId/redeliver", use: redeliver)
    }

    /// `?webhook=`, `?status=` (`pending`, `delivered`, `failed`), `?appId=`, `?limit=` (1-500, default 50),
    /// `?cursor=` (a page's `next`).
    @Sendable func events(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let query = try QueryParameters(request.uri.query)
        let status = try query["status"].map { word in
            guard let status = WebhookDeliveryStatus(rawValue: word) else {
                throw APIError.badRequest(.invalidField, "status is \(WebhookDeliveryStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return status
        }
        let appId = query["appId"]
        if let appId { try context.requireAccess(to: appId) } else { try context.requireAccessToEveryApp(for: "a listing of every app's events") }
        let cursor = try query["cursor"].map { text in
            guard let id = Self.decimal(text) else { throw APIError.badRequest(.invalidField, "cursor is a page's next value") }
            return id
        }
        let page = try await engine.webhooks.page(
            webhook: query["webhook"], status: status, appId: appId, cursor: cursor, limit: try query.integer("limit") ?? 50
        )
        return try JSONResponse.make(page, status: .ok)
    }

    @Sendable func event(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let event = try await engine.webhooks.event(id: try Self.eventId(context)) { try Self.requireAccess(to: $0, context: context) }
        return try JSONResponse.make(event, status: .ok)
    }

    @Sendable func redeliver(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let event = try await engine.webhooks.redeliver(id: try Self.eventId(context), by: context.apiKey?.name ?? "-") {
            try Self.requireAccess(to: $0, context: context)
        }
        return try JSONResponse.make(event, status: .ok)
    }

    /// An event of an app takes access to it; one of no app (a list change), a key for every app.
    static func requireAccess(to appId: String?, context: AttestGuardRequestContext) throws {
        if let appId { try context.requireAccess(to: appId) } else { try context.requireAccessToEveryApp(for: "a list change's event") }
    }

    /// The path's event id: a positive decimal number, else 400 `invalid_field`.
    static func eventId(_ context: AttestGuardRequestContext) throws -> Int64 {
        guard let id = context.parameters.get("eventId").flatMap(decimal), id > 0 else {
            throw APIError.badRequest(.invalidField, "an event id is a positive decimal number (the outbox id, not webhook-id)")
        }
        return id
    }

    /// Digits only, at most 19 (`Int64` alone would take `+5` and `-0`).
    static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(text)
    }
}
