import AttestCore
import RiskRules

/// JSON text written byte by byte, for the documents produced on every verdict (the decision snapshot, the score
/// response): `JSONEncoder` with sorted keys spends most of its time in generic containers and in Unicode-aware
/// key comparison. Callers write keys in the order they want (sorted by UTF-8 bytes, as `.sortedKeys` would).
package enum JSONText {
    /// A JSON number: integral values without a fraction, others in Swift's shortest round-trip form; `null` for
    /// values JSON cannot carry (infinity, NaN).
    package static func appendNumber(_ number: Double, to output: inout [UInt8]) {
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
    package static func appendString(_ text: String, to output: inout [UInt8]) {
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

    /// `"key":`, the key escaped, after a comma unless it is its object's first member.
    package static func appendKey(_ key: String, first: Bool = false, to output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        appendString(key, to: &output)
        output.append(UInt8(ascii: ":"))
    }

    /// `true` or `false`.
    package static func appendBool(_ flag: Bool, to output: inout [UInt8]) {
        output.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    /// How a signal object writes timestamps: seconds since 1970 as numbers (the decision log, for backtests) or
    /// ISO 8601 text (the score response, for people and gateways).
    package enum Timestamps {
        case secondsSince1970
        case iso8601
    }

    /// A JSON object of signals, in the order given (callers pass them sorted by name, the order `.sortedKeys`
    /// writes; signal names are ASCII, for which `String`'s `<` is a byte comparison), leaving out `excluded`:
    /// numbers and durations (seconds) as numbers, timestamps as `timestamps` says, strings and booleans as such,
    /// missing as `null`.
    package static func appendSignals(
        _ signals: [SignalEntry], excluding excluded: Set<String> = [], timestamps: Timestamps, to output: inout [UInt8]
    ) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for entry in signals where !excluded.contains(entry.name) {
            appendKey(entry.name, first: first, to: &output)
            first = false
            switch entry.value {
            case nil: output.append(contentsOf: "null".utf8)
            case .number(let number)?, .duration(let number)?: appendNumber(number, to: &output)
            case .timestamp(let seconds)?:
                switch timestamps {
                case .secondsSince1970: appendNumber(seconds, to: &output)
                case .iso8601: appendString(RuleValueFormat.timestamp(seconds), to: &output)
                }
            case .string(let text)?: appendString(text, to: &output)
            case .bool(let flag)?: appendBool(flag, to: &output)
            }
        }
        output.append(UInt8(ascii: "}"))
    }
}
