import AttestCore
import Foundation
import Testing

@Suite("Base64Text")
struct Base64TextTests {
    @Test("decodes both alphabets, with or without padding, from text and from bytes", arguments: [
        ("", [UInt8]()), ("QQ", [0x41]), ("QQ==", [0x41]), ("QQ=", [0x41]), ("QUI", [0x41, 0x42]), ("QUJD", [0x41, 0x42, 0x43]),
        ("-_8", [0xFB, 0xFF]), ("+/8=", [0xFB, 0xFF]), ("-/8", [0xFB, 0xFF]),
    ])
    func decodes(text: String, bytes: [UInt8]) {
        #expect(Base64Text.decodeEither(text) == Data(bytes))
        #expect(Base64Text.decodeBytes(Array(text.utf8)) == bytes)
    }

    @Test("refuses whitespace, other characters, misplaced padding and impossible lengths", arguments: [
        "Q", "QUJDR", "QQ ==", " QQ", "QQ\n", "Q=Q=", "QQ===", "QUJD*", "QUJD\u{00E9}",
    ])
    func refuses(text: String) {
        #expect(Base64Text.decodeEither(text) == nil)
        #expect(Base64Text.decodeBytes(Array(text.utf8)) == nil)
    }

    @Test("round-trips random bytes through both encoders")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base64Text.decodeEither(Base64Text.encode(bytes)) == Data(bytes))
            #expect(Base64Text.decodeBytes(Array(Base64Text.urlEncoded(bytes).utf8)) == bytes)
        }
    }

    /// The decoder character by character: each character's six bits shifted into an accumulator, a byte written
    /// whenever eight are there, leftover bits ignored. Padding is stripped first and a length of one more than a
    /// multiple of four refused, as ``Base64Text`` does.
    private static func referenceDecode(_ text: [UInt8]) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var characters = text[...]
        if characters.suffix(2) == [0x3D, 0x3D] { characters = characters.dropLast(2) } else if characters.last == 0x3D { characters = characters.dropLast() }
        guard characters.count % 4 != 1 else { return nil }
        var accumulator: UInt32 = 0, bits = 0, output: [UInt8] = []
        for character in characters {
            let value: Int
            if let index = alphabet.firstIndex(of: character) { value = index } else if character == UInt8(ascii: "+") || character == UInt8(ascii: "-") { value = 62 } else if character == UInt8(ascii: "/") || character == UInt8(ascii: "_") { value = 63 } else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    @Test("decodes four characters at a time exactly as one at a time: 20,000 random texts, valid and broken")
    func matchesTheCharacterByCharacterDecoder() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8)
        var decoded = 0
        for round in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var text = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            switch round % 4 {
            case 1 where !text.isEmpty:
                // One byte of any value anywhere: most are outside both alphabets.
                text[Int.random(in: 0..<text.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 2:
                text += Array(repeating: UInt8(ascii: "="), count: Int.random(in: 1...3, using: &generator))
            default:
                break
            }
            let expected = Self.referenceDecode(text)
            #expect(Base64Text.decodeBytes(text) == expected, "\(String(decoding: text, as: UTF8.self))")
            if text.allSatisfy({ $0 < 0x80 }) {
                // ASCII is the same bytes as a String (other bytes would be replaced in one).
                #expect(Base64Text.decodeEither(String(decoding: text, as: UTF8.self)).map { [UInt8]($0) } == expected)
            }
            if expected != nil { decoded += 1 }
        }
        // Both kinds were exercised.
        #expect(decoded > 5_000 && decoded < 19_000)
    }
}
