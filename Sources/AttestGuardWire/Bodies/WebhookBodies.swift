public import Foundation

/// The body of one webhook delivery (`POST` to a receiver's URL), signed as Standard Webhooks signs one: the
/// `webhook-id`, `webhook-timestamp` and `webhook-signature` headers. Exactly one of the detail members is present,
/// the one `type` names; a receiver ignores members it does not know, as later versions may add some.
public struct WebhookEventBody: Codable, Sendable, Hashable {
    /// The event's id, the same in every attempt and for every receiver: deduplicate by it (deliveries are at least
    /// once).
    public var id: String
    /// `verdict.deny`, `verdict.review`, `key.revoked`, `review.decided`, `ramp.paused`, `app.mode_changed` or
    /// `list.changed`.
    public var type: String
    public var createdAt: Date
    /// The app the event is about; absent for a list change (lists serve every app).
    public var appId: String?
    /// What events are ordered by: events about one subject reach a receiver in the order they happened.
    /// `key:<base64 key id>`, `user:<hash>`, `device:<hash>`, `request:<id>`, `list:<name>` or `app:<app id>`.
    public var subject: String
    public var verdict: WebhookVerdictBody?
    public var key: WebhookKeyBody?
    public var review: WebhookReviewBody?
    public var ramp: WebhookRampBody?
    public var mode: WebhookModeBody?
    public var list: WebhookListBody?

    public init(
        id: String, type: String, createdAt: Date, appId: String?, subject: String, verdict: WebhookVerdictBody? = nil, key: WebhookKeyBody? = nil,
        review: WebhookReviewBody? = nil, ramp: WebhookRampBody? = nil, mode: WebhookModeBody? = nil, list: WebhookListBody? = nil
    ) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.appId = appId
        self.subject = subject
        self.verdict = verdict
        self.key = key
        self.review = review
        self.ramp = ramp
        self.mode = mode
        self.list = list
    }
}

/// `verdict.deny` and `verdict.review`: the rules' decision about one request of an action the app chose.
public struct WebhookVerdictBody: Codable, Sendable, Hashable {
    /// The request's `X-Request-Id`, which finds its decision in the log.
    public var requestId: String?
    /// `assertion`, `attestation` or `score`.
    public var endpoint: String
    public var action: String?
    /// The rules' decision, `deny` or `review`.
    public var decision: String
    /// Whether the answer carried it: `false` when the app is in monitor mode (the answer was `allow`).
    public var enforced: Bool
    public var score: Double
    /// The ids of the rules that fired.
    public var reasons: [String]
    public var ruleSetVersion: String
    public var keyId: String?
    /// The keyed hashes of the user and device (raw ids are never sent).
    public var userHash: String?
    public var deviceHash: String?

    public init(
        requestId: String?, endpoint: String, action: String?, decision: String, enforced: Bool, score: Double, reasons: [String],
        ruleSetVersion: String, keyId: String?, userHash: String?, deviceHash: String?
    ) {
        self.requestId = requestId
        self.endpoint = endpoint
        self.action = action
        self.decision = decision
        self.enforced = enforced
        self.score = score
        self.reasons = reasons
        self.ruleSetVersion = ruleSetVersion
        self.keyId = keyId
        self.userHash = userHash
        self.deviceHash = deviceHash
    }
}

/// `key.revoked`: a key that no longer passes.
public struct WebhookKeyBody: Codable, Sendable, Hashable {
    public var keyId: String
    /// Who revoked it: an API key's name, `rule:<rule id>` or `review:<item id>`.
    public var by: String

    public init(keyId: String, by: String) {
        self.keyId = keyId
        self.by = by
    }
}

/// `review.decided`: an analyst's decision on a review item, and the label it gave the item's subject.
public struct WebhookReviewBody: Codable, Sendable, Hashable {
    public var itemId: String
    /// `approve` or `reject`.
    public var decision: String
    /// `legitimate` or `fraud`.
    public var label: String
    public var analyst: String
    /// `key`, `user`, `device` or `decision`, and its value.
    public var subjectKind: String
    public var subjectValue: String
    public var keyId: String?
    /// The actions the rejection asked for (`revoke_key`, `set_devicecheck_bit1`).
    public var actions: [String]

    public init(itemId: String, decision: String, label: String, analyst: String, subjectKind: String, subjectValue: String, keyId: String?, actions: [String]) {
        self.itemId = itemId
        self.decision = decision
        self.label = label
        self.analyst = analyst
        self.subjectKind = subjectKind
        self.subjectValue = subjectValue
        self.keyId = keyId
        self.actions = actions
    }
}

/// `ramp.paused`: the attestation rollout ramp held its percentage after a bad period; an operator resumes it.
public struct WebhookRampBody: Codable, Sendable, Hashable {
    public var percent: Int
    /// The period that paused it: when it began, its attempts, and its success and rate-limited shares.
    public var periodStart: Date
    public var attempts: Int
    public var successRate: Double
    public var rateLimitedShare: Double

    public init(percent: Int, periodStart: Date, attempts: Int, successRate: Double, rateLimitedShare: Double) {
        self.percent = percent
        self.periodStart = periodStart
        self.attempts = attempts
        self.successRate = successRate
        self.rateLimitedShare = rateLimitedShare
    }
}

/// `app.mode_changed`: the mode in force changed (`enforce`, `monitor`) through the policy routes.
public struct WebhookModeBody: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    /// The API key's name.
    public var by: String

    public init(from: String, to: String, by: String) {
        self.from = from
        self.to = to
        self.by = by
    }
}

/// `list.changed`: a run-time list was created or deleted, or had entries replaced, added or removed.
public struct WebhookListBody: Codable, Sendable, Hashable {
    public var name: String
    /// `created`, `deleted`, `replaced`, `added` or `removed`.
    public var change: String
    /// The values the change named, at most 100, in the order given (none for `created` and `deleted`).
    public var values: [String]
    /// Entries the change added or updated, and those it took off.
    public var added: Int
    public var removed: Int
    /// How many entries the list holds after the change.
    public var entries: Int
    /// Who changed it: an API key's name, `rules` or `rule:<rule id>`.
    public var by: String

    public init(name: String, change: String, values: [String], added: Int, removed: Int, entries: Int, by: String) {
        self.name = name
        self.change = change
        self.values = values
        self.added = added
        self.removed = removed
        self.entries = entries
        self.by = by
    }
}

/// `GET /v1/webhooks/events`: one page of the webhook outbox, newest first; `next` continues it.
public struct WebhookDeliveriesBody: Codable, Sendable, Hashable {
    public var events: [WebhookDeliveryBody]
    /// The cursor of the next page, when this one may not be the last.
    public var next: String?

    public init(events: [WebhookDeliveryBody], next: String?) {
        self.events = events
        self.next = next
    }
}

/// One event for one receiver in the outbox: where its delivery stands, the event as sent, and (`GET
/// /v1/webhooks/events/{id}`) every attempt.
public struct WebhookDeliveryBody: Codable, Sendable, Hashable {
    /// The outbox row's id: what the routes take.
    public var id: String
    /// The event's id (`webhook-id`), the same for every receiver.
    public var eventId: String
    public var webhook: String
    public var type: String
    public var appId: String?
    public var subject: String
    /// `pending`, `delivered` or `failed` (given up on after its retry window).
    public var status: String
    public var attempts: Int
    public var createdAt: Date
    /// When a pending event is tried next.
    public var nextAttemptAt: Date?
    /// When it was delivered or given up on.
    public var finishedAt: Date?
    /// The receiver's last HTTP status (absent when none came) and why the last attempt failed (empty after a
    /// delivery).
    public var lastStatus: Int?
    public var lastError: String
    /// The body sent.
    public var event: WebhookEventBody?
    /// Every attempt, first first: only on the one event's route.
    public var log: [WebhookAttemptBody]?

    public init(
        id: String, eventId: String, webhook: String, type: String, appId: String?, subject: String, status: String, attempts: Int, createdAt: Date,
        nextAttemptAt: Date?, finishedAt: Date?, lastStatus: Int?, lastError: String, event: WebhookEventBody?, log: [WebhookAttemptBody]?
    ) {
        self.id = id
        self.eventId = eventId
        self.webhook = webhook
        self.type = type
        self.appId = appId
        self.subject = subject
        self.status = status
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.finishedAt = finishedAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.event = event
        self.log = log
    }
}

/// One delivery attempt: when, how long, what the receiver answered, and which process made it.
public struct WebhookAttemptBody: Codable, Sendable, Hashable {
    public var attempt: Int
    /// `delivered`, `retry` or `failed`.
    public var outcome: String
    public var attemptedAt: Date
    public var durationMilliseconds: Int
    public var statusCode: Int?
    public var error: String
    public var process: String

    public init(attempt: Int, outcome: String, attemptedAt: Date, durationMilliseconds: Int, statusCode: Int?, error: String, process: String) {
        self.attempt = attempt
        self.outcome = outcome
        self.attemptedAt = attemptedAt
        self.durationMilliseconds = durationMilliseconds
        self.statusCode = statusCode
        self.error = error
        self.process = process
    }
}
