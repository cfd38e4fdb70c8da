/// What a webhook event tells the receivers that subscribed to it (`webhooks.<webhook>.events`): the `type` of its
/// body, and the word the configuration names it by.
public enum WebhookEventType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The rules decided `deny` for a request of an action the app names (`apps.<app>.webhooks.verdictActions`).
    case verdictDeny = "verdict.deny"
    /// The rules decided `review` for a request of an action the app names.
    case verdictReview = "verdict.review"
    /// A key was revoked: by an operator, a rule's `revoke_key` or a review's rejection.
    case keyRevoked = "key.revoked"
    /// An analyst approved or rejected a review item.
    case reviewDecided = "review.decided"
    /// The app's attestation rollout ramp paused itself on a bad period.
    case rampPaused = "ramp.paused"
    /// An operator changed the app's mode (`enforce`, `monitor`) at run time.
    case modeChanged = "app.mode_changed"
    /// A run-time list was created, deleted, or had entries replaced, added or removed.
    case listChanged = "list.changed"

    /// Whether events of this type are about one app's verdicts, which an app chooses to send
    /// (`apps.<app>.webhooks.verdictActions`), rather than about a change someone made.
    public var isVerdict: Bool { self == .verdictDeny || self == .verdictReview }

    public var description: String { rawValue }
}

/// Where one webhook event stands for one receiver: waiting to be delivered (or retried), delivered (the receiver
/// answered 2xx), or given up on after its retry window.
public enum WebhookDeliveryStatus: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case pending
    case delivered
    case failed

    public var description: String { rawValue }
}

/// How one delivery attempt ended: `delivered` (2xx), `retry` (anything else, tried again after a back-off), or
/// `failed` (the last attempt the event's retry window allowed).
public enum WebhookAttemptOutcome: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case delivered
    case retry
    case failed

    public var description: String { rawValue }
}
