import AttestCore
import Foundation
import RiskRules

/// The signal snapshot a decision is logged with: every signal the rule set read, as JSON (numbers, durations in
/// seconds and timestamps in seconds since 1970 as numbers; strings; booleans; `null` when missing), except the
/// raw identifiers the contract keeps out of the log (`request.user_id`, `request.ip`, `request.device_id`),
/// which a backtest therefore sees as missing.
///
/// Written by hand (``JSONText``), keys sorted by their UTF-8 bytes: it runs on every verdict, and
/// `JSONSerialization`'s sorted keys compare through a locale-aware collator, which had made this the costliest
/// step of a score request.
enum DecisionSnapshot {
    static let excluded: Set<String> = ["request.user_id", "request.ip", "request.device_id"]

    static func json(_ signals: [String: SignalValue?]) -> String {
        let entries = JSONText.sorted(signals.filter { !excluded.contains($0.key) })
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(32 * entries.count + 2)
        for (index, entry) in entries.enumerated() {
            JSONText.appendKey(entry.key, first: index == 0, to: &output)
            switch entry.value {
            case nil: output.append(contentsOf: "null".utf8)
            case .number(let number)?, .duration(let number)?, .timestamp(let number)?: JSONText.appendNumber(number, to: &output)
            case .string(let text)?: JSONText.appendString(text, to: &output)
            case .bool(let flag)?: JSONText.appendBool(flag, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }
}
