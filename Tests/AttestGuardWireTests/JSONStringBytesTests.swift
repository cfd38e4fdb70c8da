import AttestGuardWire
import Testing

/// The eight-byte test under the JSON reader's string scan and the server's JSON writer (``JSONStringBytes``),
/// against a byte-by-byte one.
@Suite("JSON string bytes, eight at a time")
struct JSONStringBytesTests {
    @Test("the word scan flags exactly the words with a byte below 0x20, a quote or a backslash")
    func wordScan() {
        func needsEscape(_ word: UInt64) -> Bool {
            (0..<8).contains { shift in
                let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(shift)))
                return byte < 0x20 || byte == 0x22 || byte == 0x5C
            }
        }
        var generator = SystemRandomNumberGenerator()
        // Each byte drawn from the values at the edges of the tests (0x1F/0x20, 0x21-0x23, 0x5B-0x5D, 0x7F/0x80, 0xFF)
        // or anywhere.
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        for _ in 0..<100_000 {
            var word: UInt64 = 0
            for shift in 0..<8 {
                let byte = Bool.random(using: &generator) ? edges.randomElement(using: &generator)! : UInt8.random(in: 0x20...0xFF, using: &generator)
                word |= UInt64(byte) << (8 * UInt64(shift))
            }
            #expect(JSONStringBytes.wordHasSpecialByte(word) == needsEscape(word), "\(String(word, radix: 16))")
        }
    }
}
