public import Foundation

/// The webhook outbox: each event written once per receiver, delivered at least once, in writing order per receiver
/// and subject, with a log of every attempt. Several processes deliver from one outbox: a claim leases an event, and
/// only the first pending event of its receiver and subject can be claimed, so that a later one never overtakes it.
public protocol WebhookOutboxStore: Sendable {
    /// Writes the drafts, in order, as pending events due at their writing; a draft whose event and receiver are
    /// written already is skipped (a write retried after a timeout that had committed).
    func enqueueWebhookEvents(_ drafts: [WebhookEventDraft]) async throws

    /// Leases up to `limit` due events until `leaseUntil` under `token`, each the first pending event of its receiver
    /// and subject, whose lease (if any) has ended by `now`; counts an attempt on each. Oldest first.
    func claimWebhookEvents(now: Date, leaseUntil: Date, token: String, limit: Int) async throws -> [WebhookEventRecord]

    /// Logs the attempt and, if its claim still holds the event, records its outcome there (delivered, due again at
    /// its next attempt, or given up on) and ends the lease. Returns whether the claim still held it.
    @discardableResult
    func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws -> Bool

    /// Events that `filter` admits, newest first (by id, before `cursor`), at most `limit`.
    func webhookEvents(filter: WebhookEventFilter, cursor: Int64?, limit: Int) async throws -> [WebhookEventRecord]

    /// One event, by its outbox id.
    func webhookEvent(id: Int64) async throws -> WebhookEventRecord?

    /// The event's delivery log, first attempt first.
    func webhookAttempts(eventRow: Int64) async throws -> [WebhookAttemptRecord]

    /// Makes a delivered or given-up event pending again, due at `now`, its retry window starting at `now`; a pending
    /// event is returned as it is. `nil` when there is no such event.
    func redeliverWebhookEvent(id: Int64, now: Date) async throws -> WebhookEventRecord?

    /// Each receiver's pending events: how many, and the oldest's writing.
    func webhookBacklog() async throws -> [WebhookBacklog]

    /// Deletes events delivered or given up on before `instant`, with their delivery logs; returns how many events.
    func purgeWebhookEvents(finishedBefore instant: Date) async throws -> Int
}
