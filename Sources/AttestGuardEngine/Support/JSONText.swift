import AttestCore
import AttestGuardWire
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
            appendInteger(Int64(number), to: &output)
        } else {
            output.append(contentsOf: number.description.utf8)
        }
    }

    /// The decimal digits of `value`, with a leading `-` when negative: `String(value)`'s text without the string.
    /// Most of a verdict's numbers are integers (counts, scores, seconds).
    package static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; written from the last digit back.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// A JSON string: quote, backslash and control characters escaped (RFC 8259 §7), everything else as UTF-8.
    /// Runs of bytes that need no escape are copied whole: every verdict writes a few dozen names and values, about
    /// two kilobytes (the snapshot and the score response). The scan reads eight bytes at a time
    /// (``JSONStringBytes/wordHasSpecialByte(_:)``) and looks at single bytes only in a word that has one to escape.
    package static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            var runStart = 0
            var index = 0
            while index < count {
                if index + 8 <= count,
                   !JSONStringBytes.wordHasSpecialByte(UnsafeRawPointer(base).loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    appendEscape(of: byte, to: &output)
                    runStart = index + 1
                }
                index += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
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
    ///
    /// A signal whose name is the one `keys` has at its position (the layout the list comes from: the same string,
    /// compared at once) is written with that key; any other with its name escaped here. See ``SignalKeys``.
    package static func appendSignals(
        _ signals: [SignalEntry], keys: SignalKeys? = nil, excluding excluded: [String] = [], timestamps: Timestamps,
        to output: inout [UInt8]
    ) {
        output.append(UInt8(ascii: "{"))
        var first = true
        // A few names compared directly, lengths first (a native string's UTF-8 count is stored): a set would hash
        // every signal's name of every verdict, and most names differ from the excluded ones in length.
        for (index, entry) in signals.enumerated()
        where !excluded.contains(where: { $0.utf8.count == entry.name.utf8.count && $0 == entry.name }) {
            if let keys, index < keys.names.count, keys.names[index] == entry.name {
                if !first { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: keys.keys[index])
            } else {
                appendKey(entry.name, first: first, to: &output)
            }
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

/// The JSON member keys (`"name":`, the name escaped) of a rule set's signals, in the order of its layout's names,
/// written once per layout (``AssemblyPlan``): every verdict writes its signals twice, in the decision snapshot and
/// in the score response, and a key kept is copied where a name would be escaped byte by byte.
package struct SignalKeys: Sendable {
    /// The layout's names, in order: a signal takes the key at its position only under the same name.
    let names: [String]
    /// One key per name, in order.
    let keys: [[UInt8]]

    init(names: [String]) {
        self.names = names
        keys = names.map { name in
            var key: [UInt8] = []
            key.reserveCapacity(name.utf8.count + 3)
            JSONText.appendString(name, to: &key)
            key.append(UInt8(ascii: ":"))
            return key
        }
    }
}
