public import AttestVocabulary
public import Foundation

/// One item of an app's review queue: the subject a `review` verdict of a chosen action was about, the latest such
/// verdict, and what analysts made of it. Review verdicts about a subject whose item is still pending fold into that
/// item (``verdicts`` counts them), so that a busy farm key fills one line of the queue, not a thousand.
///
/// The subject is the verdict's key when it named one, else its user's keyed hash, else its device's, else the
/// request itself (as fraud labels name subjects): the decision labels it. Raw user and device ids are never kept.
public struct ReviewItemRecord: Sendable, Hashable {
    /// Assigned by the store; unique across apps, read with the app's id.
    public var id: Int64
    public var appId: String
    public var subjectKind: LabelSubjectKind
    /// The key's standard base64 id, the user's or device's keyed hash, or the request id.
    public var subject: String
    /// Every subject the verdicts named (a key id in standard base64; keyed hashes), for the analyst's search.
    public var keyId: String?
    public var userHash: String?
    public var deviceHash: String?
    /// The latest verdict's endpoint and the request's action (`purchase`), if it named one.
    public var endpoint: Endpoint
    public var action: String?
    /// The latest verdict's score, fired rule ids (comma-separated) and rule-set version.
    public var score: Double
    public var fired: String
    public var ruleSetVersion: String
    /// The `X-Request-Id` of the first and the latest verdict, when the verdicts answered requests.
    public var firstRequestId: String?
    public var lastRequestId: String?
    /// How many review verdicts the item holds.
    public var verdicts: Int
    public var openedAt: Date
    public var lastVerdictAt: Date
    public var expiresAt: Date
    /// The status as stored: an `open` or `claimed` item past ``expiresAt`` is expired (``status(at:)``).
    public var storedStatus: ReviewItemStatus
    public var claimedBy: String?
    public var claimedAt: Date?
    public var decidedBy: String?
    public var decidedAt: Date?
    /// The analyst's note with the decision (empty when none).
    public var note: String
    /// What the decision asked beyond its label, and how each ended (`revoke_key: done`), one a line.
    public var followUps: String

    public init(
        id: Int64, appId: String, subjectKind: LabelSubjectKind, subject: String, keyId: String?, userHash: String?, deviceHash: String?,
        endpoint: Endpoint, action: String?, score: Double, fired: String, ruleSetVersion: String, firstRequestId: String?,
        lastRequestId: String?, verdicts: Int, openedAt: Date, lastVerdictAt: Date, expiresAt: Date, storedStatus: ReviewItemStatus,
        claimedBy: String?, claimedAt: Date?, decidedBy: String?, decidedAt: Date?, note: String, followUps: String
    ) {
        self.id = id
        self.appId = appId
        self.subjectKind = subjectKind
        self.subject = subject
        self.keyId = keyId
        self.userHash = userHash
        self.deviceHash = deviceHash
        self.endpoint = endpoint
        self.action = action
        self.score = score
        self.fired = fired
        self.ruleSetVersion = ruleSetVersion
        self.firstRequestId = firstRequestId
        self.lastRequestId = lastRequestId
        self.verdicts = verdicts
        self.openedAt = openedAt
        self.lastVerdictAt = lastVerdictAt
        self.expiresAt = expiresAt
        self.storedStatus = storedStatus
        self.claimedBy = claimedBy
        self.claimedAt = claimedAt
        self.decidedBy = decidedBy
        self.decidedAt = decidedAt
        self.note = note
        self.followUps = followUps
    }

    /// The status at `now`: a pending item past its expiry is `expired`, whether or not the store swept it yet.
    public func status(at now: Date) -> ReviewItemStatus {
        storedStatus.isPending && expiresAt <= now ? .expired : storedStatus
    }

    /// Whether `analyst`'s claim or decision may change the item at `now`: it is pending, and unclaimed, claimed by
    /// `analyst`, or claimed long enough ago (``ReviewItemStatus/claimHoldSeconds``) that another may take it over.
    public func yields(to analyst: String, at now: Date) -> Bool {
        guard status(at: now).isPending else { return false }
        guard storedStatus == .claimed, let claimedBy, let claimedAt else { return true }
        return claimedBy == analyst || claimedAt.addingTimeInterval(TimeInterval(ReviewItemStatus.claimHoldSeconds)) <= now
    }
}

/// An analyst's claim or decision on one item, for the store to apply only if the item still yields to them
/// (``ReviewItemRecord/yields(to:at:)``).
public struct ReviewItemChange: Sendable, Hashable {
    /// What the analyst does.
    public enum Kind: Sendable, Hashable {
        /// Takes the item, so that other analysts leave it for ``ReviewItemStatus/claimHoldSeconds``.
        case claim
        /// The decision, its note and the follow-ups it asks for (one a line).
        case decide(ReviewDecision, note: String, followUps: String)
    }

    public var appId: String
    public var itemId: Int64
    public var analyst: String
    public var kind: Kind
    public var at: Date

    public init(appId: String, itemId: Int64, analyst: String, kind: Kind, at: Date) {
        self.appId = appId
        self.itemId = itemId
        self.analyst = analyst
        self.kind = kind
        self.at = at
    }

    /// The label a decision writes, in the same transaction: the item's subject, source ``ReviewDecision/labelSource``.
    public func label(of item: ReviewItemRecord) -> FraudLabelRecord? {
        guard case .decide(let decision, _, _) = kind else { return nil }
        return FraudLabelRecord(
            appId: item.appId, kind: item.subjectKind, subject: item.subject, source: ReviewDecision.labelSource, label: decision.label,
            labelledAt: at
        )
    }
}

/// What became of a ``ReviewItemChange``.
public enum ReviewItemChangeOutcome: Sendable, Hashable {
    /// Applied: the item as it now is (a decision's label stored with it).
    case changed(ReviewItemRecord)
    /// The app has no item with this id.
    case notFound
    /// Another analyst's claim holds it: the item as it is.
    case claimed(ReviewItemRecord)
    /// It is decided or expired: the item as it is.
    case closed(ReviewItemRecord)
}
