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
}
