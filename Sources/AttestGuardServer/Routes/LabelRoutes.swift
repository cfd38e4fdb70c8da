import AttestGuardWire
import AttestGuardEngine
import AttestVocabulary
import Hummingbird
import AttestGuardRuntime

/// `POST /v1/labels` (scope `analyst:write` or `admin`, limited to the key's apps): the fraud team's word that a
/// decision, key, user or device was fraud or legitimate. One label or `{labels: [...]}` (at most 1,000), checked
/// whole before any is stored, then stored in one transaction; each is idempotent on (app, subject, source) and
/// the answer says, label by label, whether it was created, replaced or unchanged. Logged at info with the key's
/// name and the counts (never a subject). `POST /v1/labels/delete` takes a subject's labels away again.
struct LabelRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let labels = router.group("v1").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analystWrite, .admin]))
        labels.post("labels", use: store)
        labels.post("labels/delete", use: delete)
    }

    /// `POST /v1/labels/delete`: `{appId, requestId|keyId|userId|deviceId, source?}` deletes that subject's labels of
    /// the source, or of every source; answers `{deleted}` (0 when there were none). Logged at info with the count.
    @Sendable func delete(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let fields = try await body.decode(LabelFields.self, from: request)
        if let appId = fields.appId, !appId.isEmpty { try context.requireAccess(to: appId) }
        let deleted = try await engine.labels.delete(try fields.submission())
        context.logger.info("labels deleted", metadata: ["deleted": .stringConvertible(deleted)])
        return try JSONResponse.make(LabelDeletionResponseBody(deleted: deleted), status: .ok)
    }

    @Sendable func store(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let fields = try await body.decode(LabelRequestBody.self, from: request).all()
        guard fields.count <= LabelService.maximumBatch else {
            throw APIError.badRequest(.tooManyLabels, "a batch carries at most \(LabelService.maximumBatch) labels, not \(fields.count)")
        }
        for field in fields {
            if let appId = field.appId, !appId.isEmpty { try context.requireAccess(to: appId) }
        }
        let result = try await engine.labels.store(fields)
        // The request's logger carries the API key's name already.
        context.logger.info("labels stored", metadata: [
            "created": .stringConvertible(result.created), "replaced": .stringConvertible(result.replaced),
            "unchanged": .stringConvertible(result.unchanged),
        ])
        return try JSONResponse.make(LabelResponseBody(result), status: .ok)
    }
}
