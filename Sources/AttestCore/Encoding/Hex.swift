/// Lower-case hexadecimal encoding and decoding for keys, hashes and CLI arguments.
public enum Hex {
    /// Encodes bytes as lower-case hex. Inlinable so that each caller gets a copy specialized for its collection
    /// type: across the module boundary the generic version walks a digest's bytes through witness tables, a cost
    /// the score path pays often (it hex-encodes every velocity subject).
    @inlinable
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let lowerCaseDigits: StaticString = "0123456789abcdef"
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 2)
        lowerCaseDigits.withUTF8Buffer { digits in
            for byte in bytes {
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes hex (either case, no separators); `nil` for odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
