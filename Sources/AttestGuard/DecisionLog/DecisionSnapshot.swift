import AttestCore
import Foundation
import RiskRules

/// The signal snapshot a decision is logged with: every signal the rule set read, as JSON (numbers, durations in
/// seconds and timestamps in seconds since 1970 as numbers; strings; booleans; `null` when missing), except the
/// raw identifiers the contract keeps out of the log (`request.user_id`, `request.ip`, `request.device_id`),
/// which a backtest therefore sees as missing.
///
/// Written by hand, keys sorted by their UTF-8 bytes: it runs on every verdict, and `JSONSerialization`'s sorted
/// keys compare through a locale-aware collator, which had made this the costliest step of a score request.
enum DecisionSnapshot {
    static let excluded: Set<String> = ["request.user_id", "request.ip", "request.device_id"]

    static func json(_ signals: [String: SignalValue?]) -> String {
        let entries = signals.filter { !excluded.contains($0.key) }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(32 * entries.count + 2)
        for (index, entry) in entries.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendString(entry.key, to: &output)
            output.append(UInt8(ascii: ":"))
            switch entry.value {
            case nil: output.append(contentsOf: "null".utf8)
            case .number(let number)?, .duration(let number)?, .timestamp(let number)?: appendNumber(number, to: &output)
            case .string(let text)?: appendString(text, to: &output)
            case .bool(let flag)?: output.append(contentsOf: (flag ? "true" : "false").utf8)
            }
        }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// A JSON number: integral values without a fraction, others in Swift's shortest round-trip form; `null` for
    /// values JSON cannot carry (infinity, NaN).
    static func appendNumber(_ number: Double, to output: inout [UInt8]) {
        guard number.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        if number == number.rounded(), abs(number) < 1e15 {
            output.append(contentsOf: String(Int64(number)).utf8)
        } else {
            output.append(contentsOf: number.description.utf8)
        }
    }

    /// A JSON string: quote, backslash and control characters escaped (RFC 8259 §7), everything else as UTF-8.
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(contentsOf: Hex.encode([byte]).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
