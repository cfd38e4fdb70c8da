public import AttestVocabulary
public import Foundation

/// One review verdict for the queue: it opens an item about its subject, or folds into the pending one.
public struct ReviewOpening: Sendable, Hashable {
    public var appId: String
    public var subjectKind: LabelSubjectKind
    public var subject: String
    public var keyId: String?
    public var userHash: String?
    public var deviceHash: String?
    public var endpoint: Endpoint
    public var action: String?
    public var score: Double
    public var fired: String
    public var ruleSetVersion: String
    public var firstRequestId: String?
    public var lastRequestId: String?
    /// How many verdicts this opening stands for (repeats folded before the write).
    public var verdicts: Int
    public var firstVerdictAt: Date
    public var lastVerdictAt: Date
    /// When a new item expires (a folded one keeps its expiry).
    public var expiresAt: Date

    public init(
        appId: String, subjectKind: LabelSubjectKind, subject: String, keyId: String?, userHash: String?, deviceHash: String?,
        endpoint: Endpoint, action: String?, score: Double, fired: String, ruleSetVersion: String, requestId: String?, at: Date,
        expiresAt: Date
    ) {
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
        self.firstRequestId = requestId
        self.lastRequestId = requestId
        self.verdicts = 1
        self.firstVerdictAt = at
        self.lastVerdictAt = at
        self.expiresAt = expiresAt
    }

    /// What identifies the item an opening goes to while it is pending.
    public var identity: String { "\(appId)\u{0}\(subjectKind.rawValue)\u{0}\(subject)" }

    /// Folds a later verdict about the same subject into this one: its latest facts win, the counts add up.
    public mutating func fold(_ later: ReviewOpening) {
        keyId = keyId ?? later.keyId
        userHash = userHash ?? later.userHash
        deviceHash = deviceHash ?? later.deviceHash
        endpoint = later.endpoint
        action = later.action
        score = later.score
        fired = later.fired
        ruleSetVersion = later.ruleSetVersion
        lastRequestId = later.lastRequestId ?? lastRequestId
        firstRequestId = firstRequestId ?? later.firstRequestId
        verdicts += later.verdicts
        lastVerdictAt = max(lastVerdictAt, later.lastVerdictAt)
    }
}
