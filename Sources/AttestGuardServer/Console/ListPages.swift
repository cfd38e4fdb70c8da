import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardWire
import AttestVocabulary
import Foundation
import Hummingbird
import RiskRules

/// The console's run-time lists: `GET /console/lists` (every list) and `GET /console/lists/{name}` (its entries and
/// change log), and, for a key with `analyst:write` or `admin`, the console's state-changing forms: create a list,
/// add entries, remove one. Lists serve every app's rules, so the pages need a key for every app. Each form carries
/// the session's token (``ConsoleAuthority/formToken(of:)``) and is refused without it or from another site; a
/// change answers 303 to the list's page, and a refusal is the console's error page with its status and code.
struct ListPages: Sendable {
    /// The largest list form read (a textarea of entries).
    static let maximumFormBytes = 65_536
    /// Entries drawn on a list's page; the rest are counted (`attestguard lists show` prints them all).
    static let entriesShown = 500
    /// Changes drawn on a list's page.
    static let changesShown = 50

    let engine: Engine
    let templates: ConsoleTemplates
    let authority: ConsoleAuthority

    @Sendable func lists(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, canChange) = try Self.access(request, context, catalog: engine.apps)
        let lists = try await engine.lists.lists()
        let frame = ConsoleFrame(title: "Run-time lists", path: "/console/lists", scope: scope)
        return templates.page("lists", ListsView(
            frame: frame, lists: lists.map { ListsView.Row(ManagedListBody($0), query: Self.query(scope)) }, csrf: canChange ? authority.formToken(of: request) : nil,
            kinds: ListKind.allCases.map(\.rawValue)
        ))
    }

    @Sendable func list(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, canChange) = try Self.access(request, context, catalog: engine.apps)
        let name = try Self.name(context)
        let contents = try await engine.lists.contents(of: name)
        let changes = try await engine.lists.changes(of: name, limit: Self.changesShown)
        let frame = ConsoleFrame(title: "List \(name)", path: "/console/lists/\(name)", scope: scope)
        return templates.page("list", ListView(
            frame: frame, list: ManagedListBody(contents.list), entries: contents.entries.map(ManagedListEntryBody.init),
            changes: changes.map(ManagedListChangeBody.init), csrf: canChange ? authority.formToken(of: request) : nil,
            query: Self.query(scope)
        ))
    }

    /// `name`, `kind`, `description`, `csrf`.
    @Sendable func create(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, form) = try await changing(request, context)
        guard let kind = ListKind(rawValue: form["kind"] ?? ListKind.string.rawValue) else {
            throw APIError.badRequest(.invalidField, "kind is \(ListKind.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        let list = try await engine.lists.create(
            name: (form["name"] ?? "").trimmingCharacters(in: .whitespaces), kind: kind, description: form["description"] ?? "", actor: scope.key.name
        )
        context.logger.info("run-time list created", metadata: ["list": .string(list.name), "kind": .string(list.kind.rawValue), "via": "console"])
        return Self.redirect(to: list.name, scope: scope)
    }

    /// `entries` (one a line, as a CSV column), `ttl` (`24h`, empty: none), `note`, `csrf`.
    @Sendable func add(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, form) = try await changing(request, context)
        let name = try Self.name(context)
        var ttlSeconds: Int?
        if let ttl = form["ttl"]?.trimmingCharacters(in: .whitespaces), !ttl.isEmpty {
            guard let seconds = SignalInput.duration(ttl), seconds >= 1, seconds <= Double(ManagedListService.maximumTTLSeconds) else {
                throw APIError.badRequest(.listEntryInvalid, "time to live is a duration such as 90m, 24h or 7d, at most ten years")
            }
            ttlSeconds = Int(seconds)
        }
        let note = form["note"].flatMap { $0.isEmpty ? nil : $0 }
        let entries = try ManagedListEntrySubmission.csv(form["entries"] ?? "", header: false, ttlSeconds: ttlSeconds, note: note)
        guard !entries.isEmpty else { throw APIError.badRequest(.listEntryInvalid, "enter at least one entry, one a line") }
        try await apply(name, .add(entries), scope: scope, context: context)
        return Self.redirect(to: name, scope: scope)
    }

    /// `value`, `csrf`: takes one entry off.
    @Sendable func remove(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, form) = try await changing(request, context)
        let name = try Self.name(context)
        try await apply(name, .remove([ManagedListEntrySubmission(value: form["value"] ?? "", position: "the entry")]), scope: scope, context: context)
        return Self.redirect(to: name, scope: scope)
    }

    private func apply(_ name: String, _ submission: ManagedListChangeSubmission, scope: ConsoleScope, context: AttestGuardRequestContext) async throws {
        let changed = try await engine.lists.change(name, submission, actor: scope.key.name)
        context.logger.info("run-time list changed", metadata: [
            "list": .string(name), "action": .string(changed.change.action.rawValue), "added": .stringConvertible(changed.change.added),
            "removed": .stringConvertible(changed.change.removed), "entries": .stringConvertible(changed.change.entries), "via": "console",
        ])
    }

    /// A form that changes a list: from this console's page for this session, by a key that may change lists.
    private func changing(_ request: Request, _ context: AttestGuardRequestContext) async throws -> (ConsoleScope, FormFields) {
        let (scope, canChange) = try Self.access(request, context, catalog: engine.apps)
        let form = try await ConsoleForm.read(
            request, authority: authority, canChange: canChange, what: "changing a list", maximumBytes: Self.maximumFormBytes
        )
        return (scope, form)
    }

    /// The page's scope (its app and range, for the frame), and whether the key may change lists. Lists serve every
    /// app's rules: a key limited to some apps is refused (403).
    private static func access(
        _ request: Request, _ context: AttestGuardRequestContext, catalog: AppCatalog
    ) throws -> (ConsoleScope, canChange: Bool) {
        if let key = context.apiKey, key.apps != nil {
            throw APIError(.forbidden, code: .forbidden, "run-time lists serve every app's rules: they take a key for every app")
        }
        return try ConsoleScope.signedIn(try QueryParameters(request.uri.query), context, catalog: catalog)
    }

    private static func name(_ context: AttestGuardRequestContext) throws -> String {
        let raw = context.parameters.get("listName") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    static func query(_ scope: ConsoleScope) -> String {
        "?app=\(scope.appId.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")&range=\(scope.range.rawValue)"
    }

    /// After a change: the list's page, where the change shows.
    private static func redirect(to name: String, scope: ConsoleScope) -> Response {
        Response(status: .seeOther, headers: [.location: "/console/lists/\(name)\(query(scope))"])
    }
}

/// The lists page's view.
struct ListsView: Sendable {
    struct Row: Sendable {
        var name: String
        var href: String
        var kind: String
        var entries: Int
        var revision: Int64
        var updatedAt: String
        var updatedBy: String
        var description: String

        init(_ list: ManagedListBody, query: String) {
            name = list.name
            href = "/console/lists/\(list.name)\(query)"
            kind = list.kind
            entries = list.entryCount
            revision = list.revision
            updatedAt = ConsoleText.minute(list.updatedAt)
            updatedBy = list.updatedBy
            description = list.description
        }
    }

    var frame: ConsoleFrame
    var lists: [Row]
    /// The session's form token, when the key may change lists (the create form shows only then).
    var csrf: String?
    var kinds: [String]
    var none: Bool { lists.isEmpty }
}

/// A list's page view.
struct ListView: Sendable {
    struct Entry: Sendable {
        var value: String
        var expiresAt: String
        var note: String
        var addedAt: String
        var addedBy: String
    }

    struct Change: Sendable {
        var at: String
        var actor: String
        var action: String
        var added: Int
        var removed: Int
        var entries: Int
        var values: String
    }

    var frame: ConsoleFrame
    var name: String
    var kind: String
    var description: String
    var revision: Int64
    var count: Int
    var entries: [Entry]
    /// Entries not drawn (past ``ListPages/entriesShown``).
    var more: Int
    var hasMore: Bool { more > 0 }
    var changes: [Change]
    var csrf: String?
    var action: String
    /// The lists page, in the same app and range.
    var listsHref: String

    init(
        frame: ConsoleFrame, list: ManagedListBody, entries: [ManagedListEntryBody], changes: [ManagedListChangeBody], csrf: String?,
        query: String
    ) {
        self.frame = frame
        name = list.name
        kind = list.kind
        description = list.description
        revision = list.revision
        count = entries.count
        self.entries = entries.prefix(ListPages.entriesShown).map {
            Entry(value: $0.value, expiresAt: $0.expiresAt.map(ConsoleText.minute) ?? "never", note: $0.note, addedAt: ConsoleText.minute($0.addedAt),
                  addedBy: $0.addedBy)
        }
        more = max(0, entries.count - ListPages.entriesShown)
        self.changes = changes.map {
            Change(at: ConsoleText.minute($0.at), actor: $0.actor, action: $0.action, added: $0.added, removed: $0.removed, entries: $0.entries,
                   values: $0.values.prefix(10).joined(separator: ", ") + ($0.values.count > 10 ? ", …" : ""))
        }
        self.csrf = csrf
        action = "/console/lists/\(list.name)"
        listsHref = "/console/lists\(query)"
    }
}
