@testable import AttestGuardEngine
import Foundation
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
            for _ in 0..<Int.random(in: 0...24, using: &generator) { text.unicodeScalars.append(alphabet.randomElement(using: &generator)!) }
            cases.append(text)
        }
        for text in cases {
            var output: [UInt8] = []
            JSONText.appendString(text, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == Self.escapedByteByByte(text), "\(text.debugDescription)")
        }
    }
}
