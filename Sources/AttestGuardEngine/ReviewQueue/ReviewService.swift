public import AttestGuardStore
public import AttestVocabulary
public import Foundation
import Logging
import Metrics

/// Each app's review queue for analysts: the items `review` verdicts of chosen actions opened
/// (``ReviewQueueRecorder``), claimed and decided here. A decision labels the item's subject (`legitimate` for
/// approve, `fraud` for reject, source `review`) in the same store transaction, so that it feeds the backtest's
/// precision and recall and the `label.*` signals at once; a rejection may also revoke the item's key or set its
/// DeviceCheck bit 1, run right after the decision and recorded on the item.
public struct ReviewService: Sendable {
    public let recorder: ReviewQueueRecorder
    let store: any RiskStore
    let apps: AppCatalog
    /// Where the follow-ups' deeds are: the rule actions of their names.
    let actions: RuleActionService
    let clock: any EngineClock
    let retentionDays: Int
    /// Told of every decision (`review.decided`).
    let webhooks: WebhookPublisher?
    static let logger = Logger(label: "attestguard.review")

    /// The most items one listing answers.
    public static let listingLimit = 500
    /// The longest note a decision may carry, in UTF-8 bytes.
    public static let maximumNoteBytes = 2_000

    init(
        recorder: ReviewQueueRecorder, store: any RiskStore, apps: AppCatalog, actions: RuleActionService, clock: any EngineClock,
        retentionDays: Int, webhooks: WebhookPublisher? = nil
    ) {
        self.webhooks = webhooks
        self.recorder = recorder
        self.store = store
        self.apps = apps
        self.actions = actions
        self.clock = clock
        self.retentionDays = retentionDays
    }

    /// One page of an app's items: the queue oldest first, the others latest first. `next` continues the listing
    /// when the page may not be the last.
    /// - Throws: `app_not_found` (404), `invalid_field` (400) for a limit out of 1...``listingLimit``,
    ///   `store_unavailable` (503).
    /// `at` is the instant the listing was read at, for showing each item's status as the listing chose it.
    public func items(
        appId: String, filter: ReviewItemFilter, cursor: Int64?, limit: Int
    ) async throws -> (items: [ReviewItemRecord], next: Int64?, at: Date) {
        _ = try apps.policy(for: appId)
        guard (1...Self.listingLimit).contains(limit) else {
            throw EngineError.invalid(.invalidField, "limit is 1 to \(Self.listingLimit)")
        }
        let now = clock.now()
        let items = try await withStore {
            try await store.reviewItems(appId: appId, filter: filter, cursor: cursor, limit: limit, now: now)
        }
        return (items, items.count == limit ? items.last?.id : nil, now)
    }

    /// One item of an app.
    /// - Throws: `app_not_found`, `review_item_not_found` (404), `store_unavailable` (503).
    public func item(appId: String, id: Int64) async throws -> ReviewItemRecord {
        _ = try apps.policy(for: appId)
        guard let item = try await withStore({ try await store.reviewItem(appId: appId, id: id) }) else { throw Self.notFound(id) }
        return item
    }

    /// Claims an item for `analyst`: others cannot claim or decide it for ``ReviewItemStatus/claimHoldSeconds``.
    /// Claiming one's own claimed item again renews the claim.
    /// - Throws: `review_item_not_found` (404), `review_item_claimed` or `review_item_closed` (409).
    public func claim(appId: String, id: Int64, analyst: String) async throws -> ReviewItemRecord {
        _ = try apps.policy(for: appId)
        let change = ReviewItemChange(appId: appId, itemId: id, analyst: analyst, kind: .claim, at: clock.now())
        let item = try await apply(change)
        Self.logger.info("review item claimed", metadata: ["app": .string(appId), "item": .stringConvertible(id), "analyst": .string(analyst)])
        return item
    }

    /// Decides an item: stores the decision and its label in one transaction, then runs the follow-ups a rejection
    /// asks for and records how each ended on the item.
    /// - Throws: `invalid_field` (400) for a note too long, a follow-up with an approval, or one the item has no key
    ///   for; `review_item_not_found` (404); `review_item_claimed` or `review_item_closed` (409); `store_unavailable`.
    public func decide(
        appId: String, id: Int64, analyst: String, decision: ReviewDecision, note: String, followUps: [ReviewFollowUp]
    ) async throws -> ReviewItemRecord {
        _ = try apps.policy(for: appId)
        guard note.utf8.count <= Self.maximumNoteBytes else {
            throw EngineError.invalid(.invalidField, "note is at most \(Self.maximumNoteBytes) bytes")
        }
        // Lines and tabs are a note's; other control characters (NUL, which PostgreSQL's text refuses, escapes) are not.
        guard !note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !"\n\r\t".unicodeScalars.contains($0) }) else {
            throw EngineError.invalid(.invalidField, "note holds a control character other than a line break or a tab")
        }
        let followUps = ReviewFollowUp.allCases.filter(followUps.contains)
        if !followUps.isEmpty, decision != .reject {
            throw EngineError.invalid(.invalidField, "actions go with reject only: an approved subject is not acted against")
        }
        let current = try await item(appId: appId, id: id)
        if !followUps.isEmpty, current.keyId == nil {
            throw EngineError.invalid(.invalidField, "the item names no key, so \(followUps.map(\.rawValue).joined(separator: " and ")) has nothing to act on")
        }
        let asked = followUps.map { "\($0.rawValue): \(ReviewFollowUp.notRun)" }.joined(separator: "\n")
        let change = ReviewItemChange(
            appId: appId, itemId: id, analyst: analyst, kind: .decide(decision, note: note, followUps: asked), at: clock.now()
        )
        var item = try await apply(change)
        Counter(label: MetricFamily.reviewDecisions.name, dimensions: [("decision", decision.rawValue)]).increment()
        Self.logger.notice("review item decided", metadata: [
            "app": .string(appId), "item": .stringConvertible(id), "analyst": .string(analyst), "decision": .string(decision.rawValue),
            "subject": .string(item.subjectKind.rawValue), "actions": .string(followUps.map(\.rawValue).joined(separator: ",")),
        ])
        // Before the follow-ups: a receiver learns of the decision, then of the revocation it asked for.
        await webhooks?.publish(.reviewDecided(item, decision: decision, followUps: followUps, at: change.at))
        guard !followUps.isEmpty, let keyId = item.keyId else { return item }
        var results: [String] = []
        for followUp in followUps {
            // One line per follow-up: an error's own line breaks would split it.
            let outcome = await run(followUp, appId: appId, keyId: keyId, itemId: id).replacingOccurrences(of: "\n", with: " ")
            results.append("\(followUp.rawValue): \(outcome)")
        }
        item.followUps = results.joined(separator: "\n")
        // The deeds are done whatever this write does: a failed one leaves `not run` on the item, and the log line says.
        do {
            try await withStore { try await store.recordReviewFollowUps(appId: appId, id: id, followUps: item.followUps) }
        } catch {
            Self.logger.warning("review item's actions ran; recording them failed", metadata: [
                "app": .string(appId), "item": .stringConvertible(id), "actions": .string(results.joined(separator: "; ")),
            ])
        }
        return item
    }

    /// Deletes items closed (decided or expired) longer ago than the decision log's retention; returns how many.
    public func purge(now: Date) async throws -> Int {
        try await withStore { try await store.purgeReviewItems(closedBefore: now.addingTimeInterval(-Double(retentionDays) * 86_400)) }
    }

    private func apply(_ change: ReviewItemChange) async throws -> ReviewItemRecord {
        switch try await withStore({ try await store.changeReviewItem(change) }) {
        case .changed(let item):
            return item
        case .notFound:
            throw Self.notFound(change.itemId)
        case .claimed(let item):
            let until = (item.claimedAt ?? change.at).addingTimeInterval(TimeInterval(ReviewItemStatus.claimHoldSeconds))
            throw EngineError(
                .conflict, code: .reviewItemClaimed,
                "\(item.claimedBy ?? "another analyst") claimed item \(item.id); it is theirs until \(until.formatted(.iso8601))"
            )
        case .closed(let item):
            throw EngineError(.conflict, code: .reviewItemClosed, "item \(item.id) is \(item.status(at: change.at).rawValue); nothing changed")
        }
    }

    /// Runs one follow-up on the item's key, as the rule action of its name runs; returns how it ended (`done`,
    /// `unchanged: …`, `failed: …`).
    private func run(_ followUp: ReviewFollowUp, appId: String, keyId: String, itemId: Int64) async -> String {
        let (outcome, detail) = await RuleActionService.outcome {
            switch followUp {
            case .revokeKey:
                try await actions.revokeKey(appId: appId, keyId: keyId, by: "review:\(itemId)")
            case .setDeviceCheckBit1:
                try await actions.setDeviceCheckBit1(appId: appId, subjects: [DeviceCheckSubject(kind: .key, value: keyId)], by: "review:\(itemId)")
            }
        }
        return detail.isEmpty ? outcome.rawValue : "\(outcome.rawValue): \(detail)"
    }

    static func notFound(_ id: Int64) -> EngineError {
        EngineError(.notFound, code: .reviewItemNotFound, "the app's review queue has no item \(id)")
    }
}
