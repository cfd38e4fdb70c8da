/// A value of a logged signal snapshot (the decision log's `signals`, signal name to value): a number, a string,
/// a boolean, or `null` for a missing signal. The backtest replays it, the history route returns it and the CLI
/// prints it.
public enum SnapshotValue: Codable, Sendable, Hashable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case missing

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .missing
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .bool(let flag): try container.encode(flag)
        case .missing: try container.encodeNil()
        }
    }
}
