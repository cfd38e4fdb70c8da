public import AttestGuardStore
import AttestGuardWire
public import AttestVocabulary
import EventLoopConcurrency
import Foundation
import Logging
import Metrics
import Synchronization

/// Writes webhook events into the outbox, one row per receiver that takes each (``WebhookEndpoint/takes(_:appId:)``).
/// A change someone made (a revocation, a review decision, a list change, a mode change, a ramp's pause) is written
/// before the call that made it returns (``publish(_:)``); verdicts are noted on the request path and written
/// behind it (``note(_:)``), with the other write-behind work every second. An event whose write fails waits in the
/// process for the next flush, in order; past ``maximumPending`` events a new one is dropped and counted. A process
/// that dies loses the events it had not written, as it loses its unwritten decision-log entries.
public final class WebhookPublisher: Sendable {
    public let endpoints: [WebhookEndpoint]
    /// The most events waiting to be written.
    public let maximumPending: Int
    let store: any WebhookOutboxStore
    private let pending = Mutex<[WebhookEvent]>([])
    /// Flushes run one at a time, so that events are written in the order they were published.
    private let flushes = AsyncSerialGate()
    private let dropped = Counter(label: MetricFamily.webhookEventsDropped.name)
    private let encoder = WireJSON.encoder()
    static let logger = Logger(label: "attestguard.webhooks")

    public init(endpoints: [WebhookEndpoint], store: any WebhookOutboxStore, maximumPending: Int = 10_000) {
        self.endpoints = endpoints
        self.store = store
        self.maximumPending = max(1, maximumPending)
    }

    /// Whether any receiver takes events of `type` about `appId`: the verdict path asks before it builds one.
    public func wants(_ type: WebhookEventType, appId: String?) -> Bool {
        endpoints.contains { $0.takes(type, appId: appId) }
    }

    /// Queues the event, to be written by the next flush; `false` when no receiver takes it or the queue is full.
    @discardableResult
    public func note(_ event: WebhookEvent) -> Bool {
        guard wants(event.type, appId: event.body.appId) else { return false }
        let admitted = pending.withLock { pending -> Bool in
            guard pending.count < maximumPending else { return false }
            pending.append(event)
            return true
        }
        if !admitted { dropped.increment() }
        return admitted
    }

    /// Queues the event and writes the queue now. A failed write leaves it queued for the write-behind flush and is
    /// logged: the change it reports is made, and is not undone for its event.
    public func publish(_ event: WebhookEvent) async {
        guard note(event) else { return }
        do {
            try await flush()
        } catch {
            Self.logger.warning("webhook event not written yet; the write-behind flush tries again", metadata: [
                "type": .string(event.type.rawValue), "event": .string(event.body.id), "error": .string(String(describing: error)),
            ])
        }
    }

    /// How many events wait to be written.
    public var queued: Int { pending.withLock { $0.count } }

    /// Writes every queued event in one transaction; on failure they go back, ahead of those queued meanwhile.
    public func flush() async throws {
        try await flushes.run { try await self.flushOnce() }
    }

    private func flushOnce() async throws {
        let events = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        guard !events.isEmpty else { return }
        let drafts = events.flatMap(drafts(of:))
        do {
            try await withStore { try await store.enqueueWebhookEvents(drafts) }
        } catch {
            let refused = pending.withLock { pending -> Int in
                let room = max(0, maximumPending - pending.count)
                pending.insert(contentsOf: events.prefix(room), at: 0)
                return events.count - min(room, events.count)
            }
            if refused > 0 { dropped.increment(by: refused) }
            throw error
        }
        for event in events {
            Counter(label: MetricFamily.webhookEvents.name, dimensions: [("type", event.type.rawValue)]).increment()
        }
    }

    /// The event's row for each receiver that takes it, its body encoded once.
    private func drafts(of event: WebhookEvent) -> [WebhookEventDraft] {
        let receivers = endpoints.filter { $0.takes(event.type, appId: event.body.appId) }
        guard !receivers.isEmpty, let data = try? encoder.encode(event.body) else { return [] }
        let payload = String(decoding: data, as: UTF8.self)
        return receivers.map { endpoint in
            WebhookEventDraft(
                eventId: event.body.id, webhook: endpoint.name, appId: event.body.appId, subject: event.body.subject, type: event.type,
                payload: payload, createdAt: event.body.createdAt
            )
        }
    }

    /// Drops every queued event, counting them: for a shutdown whose last flush ran out of time.
    public func dropPending() -> Int {
        let count = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending.count
        }
        if count > 0 { dropped.increment(by: count) }
        return count
    }
}
