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
    /// Runs of bytes that need no escape are copied whole: every verdict writes a few dozen names and values.
    package static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(of: byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The escape of a quote, a backslash or a control character.
    private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
        case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
        case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(contentsOf: Hex.encode([byte]).utf8)
        }
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
        _ signals: [SignalEntry], excluding excluded: [String] = [], timestamps: Timestamps, to output: inout [UInt8]
    ) {
        output.append(UInt8(ascii: "{"))
        var first = true
        // A few names compared directly, lengths first (a native string's UTF-8 count is stored): a set would hash
        // every signal's name of every verdict, and most names differ from the excluded ones in length.
        for entry in signals where !excluded.contains(where: { $0.utf8.count == entry.name.utf8.count && $0 == entry.name }) {
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
