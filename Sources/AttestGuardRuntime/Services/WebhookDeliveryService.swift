package import AttestGuardEngine
import AttestVocabulary
import Foundation
package import Logging
import Metrics
import ServiceLifecycle

/// Delivers the webhook outbox from this process (``WebhookDispatcher``): every `poll` it sends what is due, and every
/// `backlogEvery` it reads each receiver's backlog into `attestguard_webhook_backlog` and
/// `attestguard_webhook_oldest_pending_seconds`. Runs only where receivers are configured; every serving process
/// delivers, and the outbox's leases keep each event with one of them at a time.
package struct WebhookDeliveryService: Service {
    let engine: Engine
    let dispatcher: WebhookDispatcher
    let transport: HTTPWebhookTransport
    let logger: Logger
    var poll: Duration = .seconds(1)
    var backlogEvery: Duration = .seconds(15)

    /// The service for `engine`'s receivers; `nil` when none is configured.
    package static func service(engine: Engine, process: String, logger: Logger) -> WebhookDeliveryService? {
        guard !engine.webhooks.endpoints.isEmpty else { return nil }
        let transport = HTTPWebhookTransport()
        let dispatcher = WebhookDispatcher(
            endpoints: engine.webhooks.endpoints, store: engine.store, transport: transport, clock: engine.clock, process: process
        )
        return WebhookDeliveryService(engine: engine, dispatcher: dispatcher, transport: transport, logger: logger)
    }

    package func run() async throws {
        for endpoint in engine.webhooks.endpoints {
            for outcome in WebhookAttemptOutcome.allCases {
                Counter(label: MetricFamily.webhookDeliveries.name, dimensions: [("webhook", endpoint.name), ("outcome", outcome.rawValue)]).increment(by: 0)
            }
        }
        let clock = ContinuousClock()
        var lastBacklog: ContinuousClock.Instant?
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                // A shutdown cancels the attempts in flight: they are recorded as failed and sent again later.
                _ = try await cancelWhenGracefulShutdown { try await dispatcher.deliverDue() }
                if failing { logger.info("webhook outbox readable again") }
                failing = false
            } catch {
                if !failing {
                    logger.warning("webhook outbox not readable; delivery waits for the store", metadata: ["error": .string(String(describing: error))])
                }
                failing = true
            }
            if lastBacklog.map({ clock.now - $0 >= backlogEvery }) ?? true {
                lastBacklog = clock.now
                await recordBacklog()
            }
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: poll) }
        }
        await transport.shutdown()
    }

    private func recordBacklog() async {
        guard let backlog = try? await engine.store.webhookBacklog() else { return }
        let now = engine.clock.now()
        for endpoint in engine.webhooks.endpoints {
            let line = backlog.first { $0.webhook == endpoint.name }
            Gauge(label: MetricFamily.webhookBacklog.name, dimensions: [("webhook", endpoint.name)]).record(line?.pending ?? 0)
            Gauge(label: MetricFamily.webhookOldestPending.name, dimensions: [("webhook", endpoint.name)])
                .record(line.map { max(0, now.timeIntervalSince($0.oldestCreatedAt)) } ?? 0)
        }
    }
}
