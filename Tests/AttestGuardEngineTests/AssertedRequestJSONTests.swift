@testable import AttestGuardEngine
import Foundation
import RiskRules
import Testing

/// What a consumed challenge keeps of its request is written by hand: these pin that it is the text `JSONEncoder`
/// (sorted keys, unescaped slashes) writes for the same request.
@Suite("Asserted request JSON")
struct AssertedRequestJSONTests {
    static func encoded(_ request: AssertedRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }

    @Test("every member, attributes of each type in byte order, escapes")
    func everyMember() throws {
        let request = AssertedRequest(
            method: "POST", path: "/v1/promo/claim?x=\"1\"", bodySha256: "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg",
            ip: try ClientIP("2001:db8::1", field: "ip"), action: "claim\tpromo",
            attributes: ["b": .number(2.5), "B": .bool(true), "a": .string("é ✓ \\ /"), "_n": .number(-3), "big": .number(1e20)]
        )
        #expect(request.jsonText == (try Self.encoded(request)))
        #expect(request.jsonText.hasPrefix(#"{"action":"claim\tpromo","attributes":{"B":true,"_n":-3,"a":"é ✓ \\ /","b":2.5,"big":"#))
    }

    @Test("only the required members")
    func minimal() throws {
        let request = AssertedRequest(method: "GET", path: "/", bodySha256: nil)
        #expect(request.jsonText == #"{"method":"GET","path":"/"}"#)
        #expect(request.jsonText == (try Self.encoded(request)))
        let empty = AssertedRequest(method: "GET", path: "/", bodySha256: nil, ip: try ClientIP("10.0.0.1", field: "ip"), attributes: [:])
        #expect(empty.jsonText == (try Self.encoded(empty)))
    }

    /// The escaping of RFC 8259 §7 written one byte at a time: what `JSONText.appendString` must equal.
    static func escapedByteByByte(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += #"\""#
            case "\\": output += #"\\"#
            case "\n": output += #"\n"#
            case "\r": output += #"\r"#
            case "\t": output += #"\t"#
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    @Test("strings are escaped as byte by byte: runs copied whole, escapes at the start, middle and end, non-ASCII kept")
    func stringRuns() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "/", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1f}", "\u{7f}", "é", "✓", "\u{1F600}"]
        var cases = ["", "plain", "\"", "\\", "\"start", "end\\", "mid\u{1}dle", "\u{0}\u{0}", "é✓"]
        for _ in 0..<2_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...80, using: &generator) { text.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
            cases.append(text)
        }
        for text in cases {
            var output: [UInt8] = []
            JSONText.appendString(text, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == Self.escapedByteByByte(text), "\(text.debugDescription)")
        }
    }

    @Test("every ASCII byte and a multi-byte character at every position of a run, across the eight-byte words")
    func everyByteAtEveryPosition() {
        let characters = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "✓", "\u{1F600}"]
        for length in [1, 7, 8, 9, 15, 16, 17, 24, 31] {
            for position in 0..<length {
                for character in characters {
                    let text = String(repeating: "a", count: position) + character + String(repeating: "b", count: length - position - 1)
                    var output: [UInt8] = []
                    JSONText.appendString(text, to: &output)
                    #expect(String(decoding: output, as: UTF8.self) == Self.escapedByteByByte(text), "\(text.debugDescription)")
                }
            }
        }
    }

    @Test("integers are written as String(_:) writes them")
    func integers() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 999_999_999_999_999, -999_999_999_999_999, .max, .min, .max - 1, .min + 1]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator)) }
        for value in values {
            var output: [UInt8] = []
            JSONText.appendInteger(value, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == String(value))
        }
        var number: [UInt8] = []
        JSONText.appendNumber(-42, to: &number)
        JSONText.appendNumber(2.5, to: &number)
        JSONText.appendNumber(1e20, to: &number)
        JSONText.appendNumber(.nan, to: &number)
        #expect(String(decoding: number, as: UTF8.self) == "-422.51e+20null")
    }

    @Test("signals written with their layout's keys are the signals written with their names; another list, shorter or renamed, is written by its names")
    func signalKeys() {
        let names = ["a", "b\"q", "device.age", "tab\tname", "z"]
        let values: [SignalValue?] = [.number(1), nil, .string("x\"y"), .bool(true), .timestamp(1_700_000_000.5)]
        let signals: [SignalEntry] = zip(names, values).map { (name: $0, value: $1) }
        let keys = SignalKeys(names: names)
        for excluded in [[], ["b\"q"], ["a", "z"], names] {
            for timestamps in [JSONText.Timestamps.secondsSince1970, .iso8601] {
                var withKeys: [UInt8] = [], withNames: [UInt8] = []
                JSONText.appendSignals(signals, keys: keys, excluding: excluded, timestamps: timestamps, to: &withKeys)
                JSONText.appendSignals(signals, excluding: excluded, timestamps: timestamps, to: &withNames)
                #expect(String(decoding: withKeys, as: UTF8.self) == String(decoding: withNames, as: UTF8.self))
            }
        }
        // A list that is not the keys' (shorter, or as long with other names) is written by its names.
        let renamed: [SignalEntry] = signals.map { (name: "x." + $0.name, value: $0.value) }
        for other in [Array(signals.dropFirst()), renamed, Array(renamed.prefix(2)) + Array(signals.dropFirst(2))] {
            var withKeys: [UInt8] = [], withNames: [UInt8] = []
            JSONText.appendSignals(other, keys: keys, timestamps: .iso8601, to: &withKeys)
            JSONText.appendSignals(other, timestamps: .iso8601, to: &withNames)
            #expect(String(decoding: withKeys, as: UTF8.self) == String(decoding: withNames, as: UTF8.self))
        }
    }
}
