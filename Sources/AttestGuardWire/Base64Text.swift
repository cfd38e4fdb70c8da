public import Foundation

/// Base64 in both alphabets, strict about what it accepts: the wire carries challenges as base64url without
/// padding and key ids, attestations and assertions as standard base64. One implementation for the server, the
/// CLI, the simulator and an app's client.
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
        var text = text
        return text.withUTF8 { bytes in
            // Bytes, not Characters: a Character scan runs grapheme breaking over every assertion's client data.
            guard !bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) else { return nil }
            return decodeData(bytes)
        }
    }

    /// Decodes standard base64 or base64url, with or without padding; nil for anything else (whitespace too).
    public static func decodeEither(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { decodeData($0) }
    }

    /// ``decodeEither(_:)`` over the bytes of a text (an HTTP body), without building a `String`: one pass, a
    /// lookup table, either alphabet (even mixed), one or two trailing `=` optional, and a length that is not
    /// one more than a multiple of four. Bits left over in the last character are ignored.
    public static func decodeBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        // One generic hop, then a loop over raw memory: iterating a generic collection byte by byte from
        // another module costs a metadata lookup per byte.
        if let decoded = text.withContiguousStorageIfAvailable({ decode($0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode($0) }
    }

    /// ``decodeBytes(_:)`` of an HTTP body, ignoring leading and trailing ASCII whitespace (space, tab, CR, LF);
    /// nil when nothing but whitespace is left.
    public static func decodeBody(_ body: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = body.withContiguousStorageIfAvailable({ decode(trimmingWhitespace($0)) }) { return decoded }
        return Array(body).withUnsafeBufferPointer { decode(trimmingWhitespace($0)) }
    }

    private static func trimmingWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        guard start < end else { return UnsafeBufferPointer(rebasing: bytes[0..<0]) }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// The characters to decode (the text less its padding) and the bytes they make, or nil for a length no
    /// base64 text has.
    private static func lengths(_ text: UnsafeBufferPointer<UInt8>) -> (characters: Int, bytes: Int)? {
        var length = text.count
        if length >= 2, text[length - 1] == UInt8(ascii: "="), text[length - 2] == UInt8(ascii: "=") {
            length -= 2
        } else if length >= 1, text[length - 1] == UInt8(ascii: "=") {
            length -= 1
        }
        guard length % 4 != 1 else { return nil }
        return (length, length * 3 / 4)
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let (characters, bytes) = lengths(text) else { return nil }
        var valid = false
        let output = [UInt8](unsafeUninitializedCapacity: bytes) { buffer, initialized in
            valid = decode(text.prefix(characters), into: buffer)
            initialized = valid ? bytes : 0
        }
        return valid ? output : nil
    }

    /// ``decode(_:)`` into `Data` directly, with no intermediate array.
    private static func decodeData(_ text: UnsafeBufferPointer<UInt8>) -> Data? {
        guard let (characters, bytes) = lengths(text) else { return nil }
        var output = Data(count: bytes)
        let valid = output.withUnsafeMutableBytes { decode(text.prefix(characters), into: $0.bindMemory(to: UInt8.self)) }
        return valid ? output : nil
    }

    /// Decodes `characters` (no padding) into `output`, which has room for exactly the bytes they make; false when
    /// a character is outside both alphabets. Four characters make three bytes, looked up, tested and stored together
    /// through raw pointers: every assertion decodes about half a kilobyte of base64 (key id, assertion, client data).
    private static func decode(_ characters: Slice<UnsafeBufferPointer<UInt8>>, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let text = UnsafeBufferPointer(rebasing: characters)
        let quads = text.count / 4
        let rest = text.count % 4
        // A rest of one character makes no byte and is no base64 (``lengths(_:)`` refuses it first).
        guard rest != 1, output.count == quads * 3 + max(rest - 1, 0) else { return false }
        guard let input = text.baseAddress, let bytes = output.baseAddress else { return text.isEmpty }
        return decodingTable.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            // Valid values are below 64; 0xFF marks every other byte, so one test of the four values' union finds it.
            func value(_ offset: Int) -> UInt32 { UInt32(table[Int(input[offset])]) }
            for quad in 0..<quads {
                let a = value(4 * quad), b = value(4 * quad + 1), c = value(4 * quad + 2), d = value(4 * quad + 3)
                guard (a | b | c | d) & 0xC0 == 0 else { return false }
                let word = a << 18 | b << 12 | c << 6 | d
                bytes[3 * quad] = UInt8(truncatingIfNeeded: word >> 16)
                bytes[3 * quad + 1] = UInt8(truncatingIfNeeded: word >> 8)
                bytes[3 * quad + 2] = UInt8(truncatingIfNeeded: word)
            }
            guard rest > 0 else { return true }
            // The last two or three characters: their leftover low bits are ignored.
            let last = 4 * quads
            var word = value(last) << 18 | value(last + 1) << 12
            var union = value(last) | value(last + 1)
            if rest == 3 {
                word |= value(last + 2) << 6
                union |= value(last + 2)
            }
            guard union & 0xC0 == 0 else { return false }
            bytes[3 * quads] = UInt8(truncatingIfNeeded: word >> 16)
            if rest == 3 { bytes[3 * quads + 1] = UInt8(truncatingIfNeeded: word >> 8) }
            return true
        }
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
