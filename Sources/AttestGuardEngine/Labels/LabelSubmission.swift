public import AttestVocabulary
public import Foundation

/// One fraud label as a caller sends it (`POST /v1/labels`, a line of `attestguard labels import`): the app, exactly
/// one subject, the label, its source and, optionally, when it was given. ``LabelService/validate(_:)`` checks it.
public struct LabelSubmission: Sendable, Hashable {
    public var appId: String?
    /// A logged decision's request id (`X-Request-Id`).
    public var requestId: String?
    /// A key id, base64 or base64url.
    public var keyId: String?
    public var userId: String?
    public var deviceId: String?
    /// `fraud` or `legitimate`.
    public var label: String?
    /// Who says so: `chargebacks`, `support-case-123`.
    public var source: String?
    /// When the source said so; the clock's now when absent.
    public var labelledAt: Date?

    public init(
        appId: String?, requestId: String? = nil, keyId: String? = nil, userId: String? = nil, deviceId: String? = nil, label: String?,
        source: String?, labelledAt: Date? = nil
    ) {
        self.appId = appId
        self.requestId = requestId
        self.keyId = keyId
        self.userId = userId
        self.deviceId = deviceId
        self.label = label
        self.source = source
        self.labelledAt = labelledAt
    }
}

/// What storing a batch of labels did, label by label in the order given, with the counts.
public struct LabelBatchResult: Sendable, Hashable {
    public var outcomes: [LabelWriteOutcome]

    public init(outcomes: [LabelWriteOutcome]) {
        self.outcomes = outcomes
    }

    public var created: Int { outcomes.count { $0 == .created } }
    public var replaced: Int { outcomes.count { $0 == .replaced } }
    public var unchanged: Int { outcomes.count { $0 == .unchanged } }
}
