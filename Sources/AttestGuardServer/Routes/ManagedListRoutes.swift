import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Foundation
import Hummingbird
import AttestGuardRuntime

/// Run-time lists (contract: "Run-time lists"), which rules read by name and analysts change without a deployment.
/// Reads (`GET /v1/lists`, `GET /v1/lists/{name}`, `GET /v1/lists/{name}/changes`) take scope `analyst`,
/// `analyst:write` or `admin`; changes (`POST /v1/lists`, `PUT` and `POST /v1/lists/{name}/entries`, `POST
/// /v1/lists/{name}/entries/remove`, `DELETE /v1/lists/{name}`) take `analyst:write` or `admin`. A list serves every
/// app's rules, so every route needs a key for every app. Entries come as JSON or, for `PUT`/`POST .../entries`, as
/// `text/csv`. Every change is logged at info with the key's name, the list and the counts (never the values).
struct ManagedListRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let reading = router.group("v1/lists").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analyst, .analystWrite, .admin]))
        reading.get(use: lists)
        reading.get(":listName", use: show)
        reading.get(":listName/changes", use: changes)
        let writing = router.group("v1/lists").add(middleware: APIKeyMiddleware(ring: keys, scopes: [.analystWrite, .admin]))
        writing.post(use: create)
        writing.put(":listName/entries", use: replace)
        writing.post(":listName/entries", use: add)
        writing.post(":listName/entries/remove", use: remove)
        writing.delete(":listName", use: delete)
    }

    @Sendable func lists(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        return try JSONResponse.make(ManagedListsBody(lists: try await engine.lists.lists().map(ManagedListBody.init)), status: .ok)
    }

    @Sendable func show(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        let contents = try await engine.lists.contents(of: Self.name(context))
        return try JSONResponse.make(
            ManagedListContentsBody(list: ManagedListBody(contents.list), entries: contents.entries.map(ManagedListEntryBody.init)), status: .ok
        )
    }

    /// `?limit=` (1-1000, default 100).
    @Sendable func changes(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        let limit = try QueryParameters(request.uri.query).integer("limit") ?? 100
        guard (1...ManagedListService.changeListingLimit).contains(limit) else {
            throw APIError.badRequest(.invalidField, "limit is 1 to \(ManagedListService.changeListingLimit)")
        }
        let changes = try await engine.lists.changes(of: Self.name(context), limit: limit)
        return try JSONResponse.make(ManagedListChangesBody(changes: changes.map(ManagedListChangeBody.init)), status: .ok)
    }

    @Sendable func create(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        let asked = try await body.decode(ManagedListCreateBody.self, from: request)
        guard let kind = ListKind(rawValue: asked.kind ?? ListKind.string.rawValue) else {
            throw APIError.badRequest(.invalidField, "kind is \(ListKind.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        let list = try await engine.lists.create(name: asked.name, kind: kind, description: asked.description ?? "", actor: Self.actor(context))
        context.logger.info("run-time list created", metadata: ["list": .string(list.name), "kind": .string(list.kind.rawValue)])
        return try JSONResponse.make(ManagedListBody(list), status: .created)
    }

    @Sendable func replace(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try await change(request, context: context) { .replace($0) }
    }

    @Sendable func add(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try await change(request, context: context) { .add($0) }
    }

    @Sendable func remove(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        let asked = try await body.decode(ManagedListRemoveBody.self, from: request)
        let values = asked.values.enumerated().map { ManagedListEntrySubmission(value: $1, position: "value \($0 + 1)") }
        return try await applied(.remove(values), context: context)
    }

    @Sendable func delete(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        try Self.requireEveryApp(context)
        let name = try Self.name(context)
        try await engine.lists.delete(name, actor: Self.actor(context))
        context.logger.info("run-time list deleted", metadata: ["list": .string(name)])
        return Response(status: .noContent)
    }

    /// A replace or an add: entries as JSON, or as CSV (`text/csv`, with `?ttlSeconds=` and `?note=` for entries
    /// that name none).
    private func change(
        _ request: Request, context: AttestGuardRequestContext, _ make: ([ManagedListEntrySubmission]) -> ManagedListChangeSubmission
    ) async throws -> Response {
        try Self.requireEveryApp(context)
        let entries: [ManagedListEntrySubmission]
        if let type = request.headers[.contentType], Self.isCSV(type) {
            let bytes = try await body.collect(request)
            guard let text = String(validating: bytes.readableBytesView, as: UTF8.self) else {
                throw APIError.badRequest(.listEntryInvalid, "the CSV body is not UTF-8 text")
            }
            let query = try QueryParameters(request.uri.query)
            entries = try ManagedListEntrySubmission.csv(
                text, header: Self.csvHeader(type), ttlSeconds: try query.integer("ttlSeconds"), note: query["note"]
            )
        } else {
            entries = try ManagedListEntrySubmission.entries(of: try await body.decode(ManagedListEntriesBody.self, from: request))
        }
        return try await applied(make(entries), context: context)
    }

    private func applied(_ submission: ManagedListChangeSubmission, context: AttestGuardRequestContext) async throws -> Response {
        let name = try Self.name(context)
        let changed = try await engine.lists.change(name, submission, actor: Self.actor(context))
        context.logger.info("run-time list changed", metadata: [
            "list": .string(name), "action": .string(changed.change.action.rawValue), "added": .stringConvertible(changed.change.added),
            "removed": .stringConvertible(changed.change.removed), "entries": .stringConvertible(changed.change.entries),
        ])
        return try JSONResponse.make(ManagedListChangedBody(list: ManagedListBody(changed.list), change: ManagedListChangeBody(changed.change)), status: .ok)
    }

    /// `text/csv`, with no parameter but `charset=utf-8` and `header=present|absent`.
    static func isCSV(_ value: String) -> Bool {
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "text/csv" else { return false }
        return parts.dropFirst().allSatisfy { ["charset=utf-8", "charset=\"utf-8\"", "header=present", "header=absent"].contains($0) }
    }

    /// What `header=` says (RFC 4180's parameter): `true` present, `false` absent, `nil` not given.
    static func csvHeader(_ value: String) -> Bool? {
        let parameters = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if parameters.contains("header=present") { return true }
        if parameters.contains("header=absent") { return false }
        return nil
    }

    private static func name(_ context: AttestGuardRequestContext) throws -> String {
        let raw = context.parameters.get("listName") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    private static func actor(_ context: AttestGuardRequestContext) -> String {
        context.apiKey?.name ?? "-"
    }

    /// A list serves every app's rules: a key limited to some apps neither reads nor changes one.
    private static func requireEveryApp(_ context: AttestGuardRequestContext) throws {
        guard let apiKey = context.apiKey, apiKey.apps == nil else {
            throw APIError(.forbidden, code: .forbidden, "run-time lists serve every app's rules: this needs a key for every app")
        }
    }
}
