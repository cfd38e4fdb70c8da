import Foundation
import RiskRules

/// The signal snapshot a decision is logged with: every signal the rule set read, as JSON (numbers, durations in
/// seconds and timestamps in seconds since 1970 as numbers; strings; booleans; `null` when missing), except the
/// raw identifiers the contract keeps out of the log (`request.user_id`, `request.ip`, `request.device_id`),
/// which a backtest therefore sees as missing.
enum DecisionSnapshot {
    static let excluded: Set<String> = ["request.user_id", "request.ip", "request.device_id"]

    static func json(_ signals: [String: SignalValue?]) -> String {
        var object: [String: Any] = [:]
        for (name, value) in signals where !excluded.contains(name) {
            switch value {
            case nil: object[name] = NSNull()
            case .number(let number)?, .duration(let number)?, .timestamp(let number)?: object[name] = number
            case .string(let text)?: object[name] = text
            case .bool(let flag)?: object[name] = flag
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
