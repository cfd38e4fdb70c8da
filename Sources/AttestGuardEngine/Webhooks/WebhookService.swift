public import AttestGuardStore
public import AttestGuardWire
public import AttestVocabulary
public import Foundation
import Logging

/// The webhooks as operators see them: the events this process publishes (``publisher``), and the outbox's delivery
/// log, read and redelivered through `/v1/webhooks/events`.
public struct WebhookService: Sendable {
    public let publisher: WebhookPublisher
    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock
    let retentionDays: Int

    /// The most events one listing answers.
    public static let listingLimit = 500

    init(publisher: WebhookPublisher, store: any RiskStore, apps: AppCatalog, clock: any EngineClock, retentionDays: Int) {
        self.publisher = publisher
        self.apps = apps
        self.store = store
        self.clock = clock
        self.retentionDays = retentionDays
    }

    /// The receivers configured, by name.
    public var endpoints: [WebhookEndpoint] { publisher.endpoints }

    /// One page of the outbox, newest first; `next` continues it when the page may not be the last.
    /// - Throws: `invalid_field` (400) for a limit out of 1...``listingLimit`` or a receiver not configured;
    ///   `store_unavailable` (503).
    public func events(filter: WebhookEventFilter, cursor: Int64?, limit: Int) async throws -> (events: [WebhookEventRecord], next: Int64?) {
        guard (1...Self.listingLimit).contains(limit) else {
            throw EngineError.invalid(.invalidField, "limit is 1 to \(Self.listingLimit)")
        }
        if let webhook = filter.webhook, !endpoints.contains(where: { $0.name == webhook }) {
            throw EngineError.invalid(.invalidField, "webhook \(webhook) is not configured (webhooks.names)")
        }
        let events = try await withStore { try await store.webhookEvents(filter: filter, cursor: cursor, limit: limit) }
        return (events, events.count == limit ? events.last?.id : nil)
    }

    /// One page of the outbox as the delivery-log route answers it.
    /// - Throws: as ``events(filter:cursor:limit:)``; `app_not_found` (404) for an app not configured.
    public func page(webhook: String?, status: WebhookDeliveryStatus?, appId: String?, cursor: Int64?, limit: Int) async throws -> WebhookDeliveriesBody {
        if let appId { _ = try apps.policy(for: appId) }
        let page = try await events(filter: WebhookEventFilter(webhook: webhook, status: status, appId: appId), cursor: cursor, limit: limit)
        return WebhookDeliveriesBody(events: page.events.map { WebhookDeliveryBody($0) }, next: page.next.map(String.init))
    }

    /// One event with its delivery log; `access` is asked first with the event's app (`nil`: a list change's) and
    /// throws when the caller may not read it.
    /// - Throws: `webhook_event_not_found` (404), `store_unavailable` (503), what `access` throws.
    public func event(id: Int64, access: (String?) throws -> Void) async throws -> WebhookDeliveryBody {
        guard let event = try await withStore({ try await store.webhookEvent(id: id) }) else { throw Self.notFound(id) }
        try access(event.appId)
        let attempts = try await withStore { try await store.webhookAttempts(eventRow: id) }
        return WebhookDeliveryBody(event, attempts: attempts)
    }

    /// Sends a delivered or given-up event again, due now with a fresh retry window (a pending one is left as it
    /// is); logged with who asked. `access` is asked first, as ``event(id:access:)`` asks it.
    /// - Throws: `webhook_event_not_found` (404), `store_unavailable` (503), what `access` throws.
    public func redeliver(id: Int64, by actor: String, access: (String?) throws -> Void) async throws -> WebhookDeliveryBody {
        guard let stored = try await withStore({ try await store.webhookEvent(id: id) }) else { throw Self.notFound(id) }
        try access(stored.appId)
        guard let event = try await withStore({ try await store.redeliverWebhookEvent(id: id, now: clock.now()) }) else { throw Self.notFound(id) }
        WebhookPublisher.logger.notice("webhook event queued for redelivery", metadata: [
            "webhook": .string(event.webhook), "event": .string(event.eventId), "api_key": .string(actor),
        ])
        return WebhookDeliveryBody(event)
    }

    /// Deletes events delivered or given up on longer ago than the decision log's retention; returns how many.
    public func purge(now: Date) async throws -> Int {
        try await withStore { try await store.purgeWebhookEvents(finishedBefore: now.addingTimeInterval(-Double(retentionDays) * 86_400)) }
    }

    static func notFound(_ id: Int64) -> EngineError {
        EngineError(.notFound, code: .webhookEventNotFound, "the webhook outbox holds no event \(id)")
    }
}
