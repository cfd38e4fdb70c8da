/// The type of a signal or of an expression in the rule language.
public enum SignalType: String, Sendable, Hashable, CaseIterable, Codable {
    /// A number (integers and decimals alike).
    case number
    /// A length of time, written `90s`, `30m`, `24h`, `7d`, `2w`.
    case duration
    /// An instant; `age(t)` is the duration since it.
    case timestamp
    case string
    case bool

    /// How the type is named in messages.
    var article: String {
        switch self {
        case .number: "a number"
        case .duration: "a duration"
        case .timestamp: "a timestamp"
        case .string: "a string"
        case .bool: "a boolean"
        }
    }
}
