public import Foundation

/// Base64 in both alphabets, strict about what it accepts: the wire carries challenges as base64url without
/// padding and key ids, attestations and assertions as standard base64. One implementation for the server, the
/// CLI and the simulator.
public enum Base64Text {
    /// Standard base64 with padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// base64url without padding.
    public static func urlEncoded(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url (padding optional). Standard-alphabet characters are rejected.
    public static func decodeURL(_ text: String) -> Data? {
        guard !text.contains(where: { $0 == "+" || $0 == "/" }) else { return nil }
        return decodeEither(text)
    }

    /// Decodes standard base64 or base64url, with or without padding; nil for anything else (whitespace too).
    public static func decodeEither(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { decodeBytes($0).map { Data($0) } }
    }

    /// ``decodeEither(_:)`` over the bytes of a text (an HTTP body), without building a `String`: one pass, a
    /// lookup table, either alphabet (even mixed), one or two trailing `=` optional, and a length that is not
    /// one more than a multiple of four. Bits left over in the last character are ignored.
    public static func decodeBytes(_ text: some BidirectionalCollection<UInt8>) -> [UInt8]? {
        var length = text.count
        let last = text.suffix(2)
        if last.count == 2, last.first == UInt8(ascii: "="), last.last == UInt8(ascii: "=") {
            length -= 2
        } else if last.last == UInt8(ascii: "=") {
            length -= 1
        }
        guard length % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(length * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.prefix(length) {
            let value = decodingTable[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    /// The 6-bit value of each byte in either alphabet; 0xFF for every other byte.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()
}
