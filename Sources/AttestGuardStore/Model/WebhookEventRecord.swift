public import AttestVocabulary
public import Foundation

/// One webhook event to write into the outbox for one receiver: the body is signed and sent as it is here, so that
/// every attempt sends the same bytes.
public struct WebhookEventDraft: Sendable, Hashable {
    /// The event's id (`webhook-id`), the same for every receiver it goes to; the receiver deduplicates by it.
    public var eventId: String
    /// The receiver's name (`webhooks.names`).
    public var webhook: String
    public var appId: String?
    /// What the receiver's events are ordered by: events about one subject reach it in the order they were written.
    public var subject: String
    public var type: WebhookEventType
    /// The JSON body.
    public var payload: String
    public var createdAt: Date

    public init(eventId: String, webhook: String, appId: String?, subject: String, type: WebhookEventType, payload: String, createdAt: Date) {
        self.eventId = eventId
        self.webhook = webhook
        self.appId = appId
        self.subject = subject
        self.type = type
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// One event for one receiver as the outbox holds it, with where its delivery stands.
public struct WebhookEventRecord: Sendable, Hashable {
    /// The outbox row's id: the order events are written in, and the id the delivery log routes take.
    public var id: Int64
    public var eventId: String
    public var webhook: String
    public var appId: String?
    public var subject: String
    public var type: WebhookEventType
    public var payload: String
    public var createdAt: Date
    /// Where the retry window starts: the event's writing, or the last time an operator asked for it again.
    public var retrySince: Date
    public var status: WebhookDeliveryStatus
    /// The attempts claimed so far (one a claim, whether or not it came back).
    public var attempts: Int
    /// When it may be tried (again).
    public var nextAttemptAt: Date
    /// Who holds it now (a claim's token), until when; `nil` when nobody does.
    public var leaseToken: String?
    public var leaseUntil: Date?
    /// When it was delivered or given up on.
    public var finishedAt: Date?
    /// The receiver's last HTTP status; `nil` when none came (refused connection, timeout).
    public var lastStatus: Int?
    /// Why the last attempt did not deliver it; empty after a delivery.
    public var lastError: String

    public init(
        id: Int64, eventId: String, webhook: String, appId: String?, subject: String, type: WebhookEventType, payload: String, createdAt: Date,
        retrySince: Date, status: WebhookDeliveryStatus, attempts: Int, nextAttemptAt: Date, leaseToken: String?, leaseUntil: Date?,
        finishedAt: Date?, lastStatus: Int?, lastError: String
    ) {
        self.id = id
        self.eventId = eventId
        self.webhook = webhook
        self.appId = appId
        self.subject = subject
        self.type = type
        self.payload = payload
        self.createdAt = createdAt
        self.retrySince = retrySince
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseToken = leaseToken
        self.leaseUntil = leaseUntil
        self.finishedAt = finishedAt
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

/// How one delivery attempt of a claimed event ended, to record on the event and in its delivery log.
public struct WebhookAttempt: Sendable, Hashable {
    /// The outbox row attempted.
    public var eventRow: Int64
    /// The claim's token: the event changes only while this claim still holds it.
    public var leaseToken: String
    /// Which attempt of the event this was (1 for the first).
    public var attempt: Int
    public var outcome: WebhookAttemptOutcome
    public var attemptedAt: Date
    public var durationMilliseconds: Int
    public var statusCode: Int?
    public var error: String
    /// When to try again, for ``WebhookAttemptOutcome/retry``.
    public var nextAttemptAt: Date?
    /// The process that made the attempt (its id in `server_processes`, or the CLI's).
    public var process: String

    public init(
        eventRow: Int64, leaseToken: String, attempt: Int, outcome: WebhookAttemptOutcome, attemptedAt: Date, durationMilliseconds: Int,
        statusCode: Int?, error: String, nextAttemptAt: Date?, process: String
    ) {
        self.eventRow = eventRow
        self.leaseToken = leaseToken
        self.attempt = attempt
        self.outcome = outcome
        self.attemptedAt = attemptedAt
        self.durationMilliseconds = durationMilliseconds
        self.statusCode = statusCode
        self.error = error
        self.nextAttemptAt = nextAttemptAt
        self.process = process
    }
}

/// One line of an event's delivery log.
public struct WebhookAttemptRecord: Sendable, Hashable {
    public var attempt: Int
    public var outcome: WebhookAttemptOutcome
    public var attemptedAt: Date
    public var durationMilliseconds: Int
    public var statusCode: Int?
    public var error: String
    public var process: String

    public init(attempt: Int, outcome: WebhookAttemptOutcome, attemptedAt: Date, durationMilliseconds: Int, statusCode: Int?, error: String, process: String) {
        self.attempt = attempt
        self.outcome = outcome
        self.attemptedAt = attemptedAt
        self.durationMilliseconds = durationMilliseconds
        self.statusCode = statusCode
        self.error = error
        self.process = process
    }
}

/// Which outbox events a listing returns: of one receiver, in one status, of one app (each `nil`: any).
public struct WebhookEventFilter: Sendable, Hashable {
    public var webhook: String?
    public var status: WebhookDeliveryStatus?
    public var appId: String?

    public init(webhook: String? = nil, status: WebhookDeliveryStatus? = nil, appId: String? = nil) {
        self.webhook = webhook
        self.status = status
        self.appId = appId
    }
}

/// One receiver's undelivered events: how many, and since when the oldest waits.
public struct WebhookBacklog: Sendable, Hashable {
    public var webhook: String
    public var pending: Int
    public var oldestCreatedAt: Date

    public init(webhook: String, pending: Int, oldestCreatedAt: Date) {
        self.webhook = webhook
        self.pending = pending
        self.oldestCreatedAt = oldestCreatedAt
    }
}
