public import AttestGuardStore
import AttestVocabulary
public import Foundation
import Logging
import Metrics

/// Sends one signed webhook delivery. The runtime's sends with AsyncHTTPClient; tests may send another way.
public protocol WebhookTransport: Sendable {
    /// Posts `body` with `headers` to `url`: the receiver's HTTP status, or a thrown error when none came within
    /// `timeout` (refused, reset, timed out).
    func post(to url: URL, headers: [(name: String, value: String)], body: Data, timeout: Duration) async throws -> Int
}

/// When a failed delivery is tried again: after 10 seconds, then twice as long each time up to an hour, for 72 hours
/// from the event's writing (or from an operator's redelivery); then the event is given up on (`failed`).
public struct WebhookRetryPolicy: Sendable, Hashable {
    public var firstDelay: TimeInterval
    public var longestDelay: TimeInterval
    public var window: TimeInterval

    public init(firstDelay: TimeInterval = 10, longestDelay: TimeInterval = 3_600, window: TimeInterval = 72 * 3_600) {
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
        self.window = window
    }

    /// The wait after the `attempt`th attempt failed (1 for the first).
    public func delay(afterAttempt attempt: Int) -> TimeInterval {
        let doublings = min(max(attempt - 1, 0), 30)
        return min(firstDelay * pow(2, Double(doublings)), longestDelay)
    }
}

/// Delivers the outbox's due events (``WebhookOutboxStore/claimWebhookEvents(now:leaseUntil:token:limit:)``): signs
/// each (``WebhookSignature``), posts it, and records the outcome: delivered on a 2xx, else due again after the
/// retry policy's wait, or given up on past its window. Every attempt is logged in the store, counted in
/// `attestguard_webhook_deliveries_total{webhook,outcome}`, and failures are logged at most once a minute per
/// receiver. Several processes may deliver from one outbox; each event is out with one of them at a time.
public struct WebhookDispatcher: Sendable {
    /// The longest a receiver may take to answer, by default.
    public static let defaultTimeout: Duration = .seconds(10)
    /// How long a claim holds its events: past the timeout, so that only a process that died loses them to another.
    public static let lease: TimeInterval = 60
    /// The most events one claim takes (sent at once, each of another subject).
    public static let batch = 32

    let endpoints: [String: WebhookEndpoint]
    let store: any WebhookOutboxStore
    let transport: any WebhookTransport
    let clock: any EngineClock
    let retry: WebhookRetryPolicy
    /// The longest one attempt may take, connection to the answer's end.
    let timeout: Duration
    /// Who makes the attempts, in the delivery log.
    let process: String
    private let failureLog = LogSampler(interval: 60)

    public init(
        endpoints: [WebhookEndpoint], store: any WebhookOutboxStore, transport: any WebhookTransport, clock: any EngineClock,
        retry: WebhookRetryPolicy = WebhookRetryPolicy(), timeout: Duration = defaultTimeout, process: String
    ) {
        self.timeout = min(timeout, .seconds(Int64(Self.lease / 2)))
        self.endpoints = Dictionary(endpoints.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.store = store
        self.transport = transport
        self.clock = clock
        self.retry = retry
        self.process = process
    }

    /// Claims and sends due events until none is due (an event delivered makes the next of its subject due), at
    /// most `rounds` claims. Returns how many attempts were made.
    @discardableResult
    public func deliverDue(rounds: Int = 16) async throws -> Int {
        var attempts = 0
        for _ in 0..<rounds where !Task.isCancelled {
            let now = clock.now()
            let token = UUID().uuidString
            let claimed = try await withStore {
                try await store.claimWebhookEvents(now: now, leaseUntil: now.addingTimeInterval(Self.lease), token: token, limit: Self.batch)
            }
            guard !claimed.isEmpty else { break }
            attempts += claimed.count
            await withTaskGroup(of: Void.self) { group in
                for event in claimed {
                    group.addTask { await self.attempt(event) }
                }
            }
        }
        return attempts
    }

    /// Sends one claimed event and records how it went; a failure to record is logged (the lease ends, and the event
    /// is sent again: at least once).
    private func attempt(_ event: WebhookEventRecord) async {
        let started = ContinuousClock.now
        let sentAt = clock.now()
        var status: Int?
        var problem = ""
        if let endpoint = endpoints[event.webhook] {
            let body = Data(event.payload.utf8)
            let headers = [("content-type", "application/json")]
                + WebhookSignature.headers(id: event.eventId, at: sentAt, body: body, secrets: endpoint.secrets)
            do {
                status = try await transport.post(to: endpoint.url, headers: headers, body: body, timeout: timeout)
                if let status, !(200..<300).contains(status) { problem = "HTTP \(status)" }
            } catch {
                problem = String(String(describing: error).prefix(500))
            }
        } else {
            problem = "webhook \(event.webhook) is not configured in this process"
        }
        let elapsed = ContinuousClock.now - started
        let finishedAt = clock.now()
        let outcome: WebhookAttemptOutcome
        var next: Date?
        if problem.isEmpty {
            outcome = .delivered
        } else {
            let due = finishedAt.addingTimeInterval(retry.delay(afterAttempt: event.attempts))
            if due > event.retrySince.addingTimeInterval(retry.window) {
                outcome = .failed
            } else {
                outcome = .retry
                next = due
            }
        }
        let attempt = WebhookAttempt(
            eventRow: event.id, leaseToken: event.leaseToken ?? "", attempt: event.attempts, outcome: outcome, attemptedAt: sentAt,
            durationMilliseconds: Int(elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            statusCode: status, error: problem, nextAttemptAt: next, process: process
        )
        Counter(label: MetricFamily.webhookDeliveries.name, dimensions: [("webhook", event.webhook), ("outcome", outcome.rawValue)]).increment()
        if outcome != .delivered, let heldBack = failureLog.admit("\(event.webhook)/\(outcome.rawValue)", now: finishedAt) {
            let message: Logger.Message = outcome == .failed ? "webhook event given up on after its retry window" : "webhook delivery failed; retrying"
            WebhookPublisher.logger.warning(message, metadata: [
                "webhook": .string(event.webhook), "event": .string(event.eventId), "type": .string(event.type.rawValue),
                "attempt": .stringConvertible(event.attempts), "error": .string(problem), "held_back": .stringConvertible(heldBack),
            ])
        }
        do {
            _ = try await withStore { try await store.finishWebhookAttempt(attempt) }
        } catch {
            WebhookPublisher.logger.warning("webhook attempt not recorded; the event is sent again after its lease", metadata: [
                "webhook": .string(event.webhook), "event": .string(event.eventId), "error": .string(String(describing: error)),
            ])
        }
    }
}
