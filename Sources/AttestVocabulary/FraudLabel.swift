/// What a fraud team says a decision, key, user or device turned out to be: the outcome the backtest measures the
/// rules against (`POST /v1/labels`, `attestguard labels import`).
public enum FraudLabel: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case fraud
    case legitimate

    /// The longest source a label may name, in UTF-8 bytes (`chargebacks`, `rule:device-farm`).
    public static let maximumSourceBytes = 128

    public var description: String { rawValue }
}

/// What a label marks: one logged decision (by its request id), a key (its base64 id), a user or a device (their
/// ids, stored as the decision log's keyed hashes). A decision's own label comes first, then its key's, its
/// user's and its device's (``precedence``).
public enum LabelSubjectKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case decision
    case key
    case user
    case device

    /// The order in which a decision's labels apply: the first kind that has one decides.
    public static let precedence: [LabelSubjectKind] = [.decision, .key, .user, .device]

    /// The field that names the subject in a label's JSON and CSV (`requestId`, `keyId`, `userId`, `deviceId`).
    public var field: String {
        switch self {
        case .decision: "requestId"
        case .key: "keyId"
        case .user: "userId"
        case .device: "deviceId"
        }
    }

    public var description: String { rawValue }
}

/// What storing one label did: a new label, one that replaced the source's earlier label of the subject, or none
/// (the same label again, or an older one than that stored).
public enum LabelWriteOutcome: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case created
    case replaced
    case unchanged

    public var description: String { rawValue }
}
