@testable import AttestGuardWire
import Testing

/// ``UTF8Text`` is held equal to the standard library's validating initializer, on the byte sequences that matter
/// (ASCII, each UTF-8 length, every kind of invalid sequence) and on random bytes.
struct UTF8TextTests {
    static func standard(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }

    static let cases: [[UInt8]] = [
        [], Array("plain ASCII key".utf8), Array("é".utf8), Array("日本".utf8), Array("🔑 key".utf8), Array("\u{0}\u{7F}".utf8),
        [0x80], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x61, 0xE2, 0x82], [0xEF, 0xBF, 0xBD], [0x61, 0xEF, 0xBF, 0xBD, 0x80],
        [0xF0, 0x9F, 0x94, 0x91], [0xF0, 0x9F, 0x94],
    ]

    @Test("known sequences read as String(validating:as:) reads them", arguments: cases)
    func knownSequences(bytes: [UInt8]) {
        #expect(UTF8Text.string(bytes) == Self.standard(bytes))
    }

    @Test("random byte strings read as String(validating:as:) reads them")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        // Bytes weighted towards UTF-8's lead and continuation bytes, so that valid multi-byte text comes up too.
        let pool: [UInt8] = Array(0x20...0x7E) + Array(0x80...0xBF) + [0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            #expect(UTF8Text.string(bytes) == Self.standard(bytes), "\(bytes)")
        }
    }
}
