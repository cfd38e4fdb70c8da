import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardWire
import AttestVocabulary
import Foundation
import Hummingbird

/// The console's review queue: `GET /console/review-queue` (the app's items, the queue by default) and `GET
/// /console/review-queue/{id}` (one item), and, for a key with `analyst:write` or `admin`, the forms that claim and decide
/// an item. Each form carries the session's token and is refused without it or from another site; a change answers
/// 303 to the item's page, a refusal is the console's error page with the API's status and code.
struct ReviewPages: Sendable {
    /// The largest review form read (a decision's note).
    static let maximumFormBytes = 16_384
    /// Items drawn on the queue's page; the API pages through the rest.
    static let itemsShown = 100
    /// The listings the queue's page offers, in its order.
    static let filters: [ReviewItemFilter] = [.pending, .decided, .expired, .all]

    let engine: Engine
    let templates: ConsoleTemplates
    let authority: ConsoleAuthority

    @Sendable func queue(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let query = try QueryParameters(request.uri.query)
        let (scope, _) = try ConsoleScope.signedIn(query, context, catalog: engine.apps)
        let filterName = query["status"] ?? ReviewItemFilter.pending.rawValue
        guard let filter = ReviewItemFilter(rawValue: filterName) else {
            throw APIError.badRequest(.invalidField, "status is \(ReviewItemFilter.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let page = try await engine.reviews.items(appId: scope.appId, filter: filter, cursor: nil, limit: Self.itemsShown)
        let base = ListPages.query(scope)
        return templates.page("review-queue", ReviewQueueView(
            frame: ConsoleFrame(title: "Review queue", path: "/console/review-queue", scope: scope),
            filters: Self.filters.map { ReviewQueueView.Filter(label: $0.rawValue, href: "/console/review-queue\(base)&status=\($0.rawValue)", current: $0 == filter) },
            items: page.items.map { ReviewQueueView.Row(ReviewItemBody($0, at: page.at), query: base) },
            more: page.next != nil, pendingShown: filter == .pending
        ))
    }

    @Sendable func item(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let query = try QueryParameters(request.uri.query)
        let (scope, canChange) = try ConsoleScope.signedIn(query, context, catalog: engine.apps)
        let id = try Self.id(context)
        let item = ReviewItemBody(try await engine.reviews.item(appId: scope.appId, id: id), at: engine.clock.now())
        let pending = ReviewItemStatus(rawValue: item.status)?.isPending == true
        return templates.page("review-item", ReviewItemView(
            item: item, frame: ConsoleFrame(title: "Review item \(id)", path: "/console/review-queue/\(id)", scope: scope),
            query: ListPages.query(scope), csrf: canChange && pending ? authority.formToken(of: request) : nil, mayAct: ReviewRoutes.mayAct(scope.key)
        ))
    }

    /// `csrf`: claims the item for the signed-in key.
    @Sendable func claim(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, _) = try await changing(request, context)
        let id = try Self.id(context)
        _ = try await engine.reviews.claim(appId: scope.appId, id: id, analyst: scope.key.name)
        return Self.redirect(to: id, scope: scope)
    }

    /// `decision` (`approve` or `reject`), `note`, `revoke_key` and `set_devicecheck_bit1` (checkboxes), `csrf`.
    @Sendable func decide(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let (scope, form) = try await changing(request, context)
        let id = try Self.id(context)
        guard let decision = form["decision"].flatMap(ReviewDecision.init(rawValue:)) else {
            throw APIError.badRequest(.invalidField, "choose approve or reject")
        }
        let followUps = ReviewFollowUp.allCases.filter { form[$0.rawValue] != nil }
        try ReviewRoutes.requireActionScope(scope.key, for: followUps)
        _ = try await engine.reviews.decide(
            appId: scope.appId, id: id, analyst: scope.key.name, decision: decision, note: form["note"] ?? "", followUps: followUps
        )
        return Self.redirect(to: id, scope: scope)
    }

    private func changing(_ request: Request, _ context: AttestGuardRequestContext) async throws -> (ConsoleScope, FormFields) {
        let (scope, canChange) = try ConsoleScope.signedIn(try QueryParameters(request.uri.query), context, catalog: engine.apps)
        let form = try await ConsoleForm.read(
            request, authority: authority, canChange: canChange, what: "working the review queue", maximumBytes: Self.maximumFormBytes
        )
        return (scope, form)
    }

    private static func id(_ context: AttestGuardRequestContext) throws -> Int64 {
        try ReviewRoutes.itemId(context)
    }

    private static func redirect(to id: Int64, scope: ConsoleScope) -> Response {
        Response(status: .seeOther, headers: [.location: "/console/review-queue/\(id)\(ListPages.query(scope))"])
    }
}

/// The review queue page's view.
struct ReviewQueueView: Sendable {
    struct Filter: Sendable {
        var label: String
        var href: String
        var current: Bool
    }

    struct Row: Sendable {
        var id: String
        var href: String
        var status: String
        var subject: String
        var action: String
        var score: String
        var reasons: String
        var verdicts: Int
        var openedAt: String
        var expiresAt: String
        var claimedBy: String

        init(_ item: ReviewItemBody, query: String) {
            id = item.id
            href = "/console/review-queue/\(item.id)\(query)"
            status = item.status
            subject = "\(item.subjectKind) \(item.subject.prefix(12))…"
            action = item.action ?? "–"
            score = String(format: "%.0f", item.score)
            reasons = item.reasons.joined(separator: ", ")
            verdicts = item.verdicts
            openedAt = ConsoleText.minute(item.openedAt)
            expiresAt = ConsoleText.minute(item.expiresAt)
            claimedBy = item.decidedBy ?? item.claimedBy ?? ""
        }
    }

    var frame: ConsoleFrame
    var filters: [Filter]
    var items: [Row]
    /// Whether there are more items than drawn.
    var more: Bool
    /// Whether the page shows the queue itself (pending items, oldest first).
    var pendingShown: Bool
    // Stored, not computed: the templates read a view's stored properties only.
    var none: Bool
    var shown = ReviewPages.itemsShown

    init(frame: ConsoleFrame, filters: [Filter], items: [Row], more: Bool, pendingShown: Bool) {
        self.frame = frame
        self.filters = filters
        self.items = items
        self.more = more
        self.pendingShown = pendingShown
        none = items.isEmpty
    }
}

/// One review item's page view.
struct ReviewItemView: Sendable {
    struct Action: Sendable {
        var action: String
        var outcome: String
    }

    /// A follow-up a rejection may ask for, as a checkbox.
    struct FollowUp: Sendable {
        var name: String
        var label: String
    }

    var frame: ConsoleFrame
    var id: String
    var status: String
    var subjectKind: String
    var subject: String
    var keyId: String?
    var userHash: String?
    var deviceHash: String?
    var endpoint: String
    var action: String
    var score: String
    var reasons: String
    var ruleSetVersion: String
    var firstRequestId: String?
    var lastRequestId: String?
    var verdicts: Int
    var openedAt: String
    var lastVerdictAt: String
    var expiresAt: String
    var claimedBy: String?
    var claimedAt: String?
    var decidedBy: String?
    var decidedAt: String?
    var note: String
    var actions: [Action]
    var hasActions: Bool
    /// The session's form token, when the key may change the item and it is pending (the forms show only then).
    var csrf: String?
    var formAction: String
    /// The page's app and range, for the forms' actions.
    var formQuery: String
    var queueHref: String
    /// The console's search for the item's key, when it names one.
    var keySearchHref: String?
    var followUps: [FollowUp]

    /// - Parameter mayAct: Whether the key may act on the item's key (the rejection's checkboxes show only then).
    init(item: ReviewItemBody, frame: ConsoleFrame, query: String, csrf: String?, mayAct: Bool) {
        self.frame = frame
        id = item.id
        status = item.status
        subjectKind = item.subjectKind
        subject = item.subject
        keyId = item.keyId
        userHash = item.userHash
        deviceHash = item.deviceHash
        endpoint = item.endpoint
        action = item.action ?? "–"
        score = String(format: "%.0f", item.score)
        reasons = item.reasons.joined(separator: ", ")
        ruleSetVersion = item.ruleSetVersion
        firstRequestId = item.firstRequestId
        lastRequestId = item.lastRequestId
        verdicts = item.verdicts
        openedAt = ConsoleText.minute(item.openedAt)
        lastVerdictAt = ConsoleText.minute(item.lastVerdictAt)
        expiresAt = ConsoleText.minute(item.expiresAt)
        claimedBy = item.claimedBy
        claimedAt = item.claimedAt.map(ConsoleText.minute)
        decidedBy = item.decidedBy
        decidedAt = item.decidedAt.map(ConsoleText.minute)
        note = item.note
        actions = item.actions.map { Action(action: $0.action, outcome: $0.outcome) }
        hasActions = !actions.isEmpty
        self.csrf = csrf
        formAction = "/console/review-queue/\(item.id)"
        queueHref = "/console/review-queue\(query)"
        keySearchHref = item.keyId.map { "/console/search\(query)&by=key&q=\(ConsoleFrame.encoded($0))" }
        followUps = item.keyId == nil || !mayAct ? [] : ReviewFollowUp.allCases.map { FollowUp(name: $0.rawValue, label: Self.label(of: $0)) }
        formQuery = query
    }

    /// What a follow-up's checkbox says.
    private static func label(of followUp: ReviewFollowUp) -> String {
        switch followUp {
        case .revokeKey: "revoke the key"
        case .setDeviceCheckBit1: "set the key's DeviceCheck bit 1"
        }
    }
}
