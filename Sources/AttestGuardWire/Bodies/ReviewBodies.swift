public import Foundation

/// `GET /v1/apps/{appId}/review-items`: one page of an app's review queue; `next` continues it.
public struct ReviewItemsBody: Codable, Sendable, Hashable {
    public var items: [ReviewItemBody]
    /// The cursor of the next page, when this one may not be the last.
    public var next: String?

    public init(items: [ReviewItemBody], next: String?) {
        self.items = items
        self.next = next
    }
}

/// One item of an app's review queue: the subject review verdicts were about, the latest of them, and what analysts
/// made of it.
public struct ReviewItemBody: Codable, Sendable, Hashable {
    public var id: String
    public var appId: String
    /// `open`, `claimed`, `approved`, `rejected` or `expired`.
    public var status: String
    /// What the decision labels: `key` (its base64 id), `user` or `device` (their keyed hashes), or `decision` (a
    /// request id), with its value.
    public var subjectKind: String
    public var subject: String
    /// The subjects the verdicts named: a key id, and the keyed hashes of the user and device (raw ids are never
    /// kept).
    public var keyId: String?
    public var userHash: String?
    public var deviceHash: String?
    /// The latest verdict: its endpoint, the request's action, its score, the rules that fired and their version.
    public var endpoint: String
    public var action: String?
    public var score: Double
    public var reasons: [String]
    public var ruleSetVersion: String
    /// The `X-Request-Id` of the first and latest verdict (their decisions in the log).
    public var firstRequestId: String?
    public var lastRequestId: String?
    /// How many review verdicts about the subject the item holds.
    public var verdicts: Int
    public var openedAt: Date
    public var lastVerdictAt: Date
    public var expiresAt: Date
    public var claimedBy: String?
    public var claimedAt: Date?
    public var decidedBy: String?
    public var decidedAt: Date?
    /// The analyst's note with the decision (empty when none).
    public var note: String
    /// The actions a rejection asked for and how each ended.
    public var actions: [ReviewActionBody]

    public init(
        id: String, appId: String, status: String, subjectKind: String, subject: String, keyId: String?, userHash: String?, deviceHash: String?,
        endpoint: String, action: String?, score: Double, reasons: [String], ruleSetVersion: String, firstRequestId: String?,
        lastRequestId: String?, verdicts: Int, openedAt: Date, lastVerdictAt: Date, expiresAt: Date, claimedBy: String?, claimedAt: Date?,
        decidedBy: String?, decidedAt: Date?, note: String, actions: [ReviewActionBody]
    ) {
        self.id = id
        self.appId = appId
        self.status = status
        self.subjectKind = subjectKind
        self.subject = subject
        self.keyId = keyId
        self.userHash = userHash
        self.deviceHash = deviceHash
        self.endpoint = endpoint
        self.action = action
        self.score = score
        self.reasons = reasons
        self.ruleSetVersion = ruleSetVersion
        self.firstRequestId = firstRequestId
        self.lastRequestId = lastRequestId
        self.verdicts = verdicts
        self.openedAt = openedAt
        self.lastVerdictAt = lastVerdictAt
        self.expiresAt = expiresAt
        self.claimedBy = claimedBy
        self.claimedAt = claimedAt
        self.decidedBy = decidedBy
        self.decidedAt = decidedAt
        self.note = note
        self.actions = actions
    }
}

/// One action a rejection asked for, and how it ended: `not run` until it ran, then `done`, or `unchanged` or
/// `failed` with why.
public struct ReviewActionBody: Codable, Sendable, Hashable {
    /// `revoke_key` or `set_devicecheck_bit1`.
    public var action: String
    public var outcome: String

    public init(action: String, outcome: String) {
        self.action = action
        self.outcome = outcome
    }
}

/// `POST /v1/apps/{appId}/review-items/{itemId}/decision`: `approve` labels the item's subject `legitimate`,
/// `reject` labels it `fraud` and may run `actions` on its key.
public struct ReviewDecisionRequestBody: Codable, Sendable, Hashable {
    public var decision: String
    public var note: String?
    public var actions: [String]?

    public init(decision: String, note: String? = nil, actions: [String]? = nil) {
        self.decision = decision
        self.note = note
        self.actions = actions
    }
}
