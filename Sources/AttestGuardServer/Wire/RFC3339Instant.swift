public import AppleReceipts
public import Foundation

/// Reads an RFC 3339 instant as a caller writes one: `2026-11-22T12:00:00Z`, with or without a fraction of a
/// second, and in UTC (`Z` or `z`) or at an offset (`+01:00`, `-05:30`). Strict otherwise: fields in range, no
/// spaces, no other forms of ISO 8601.
public enum RFC3339Instant {
    /// The instant, or `nil` when `text` is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 46 else { return nil }
        let last = bytes[bytes.count - 1]
        if last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
            return ISO8601Timestamp.parse(String(decoding: bytes.dropLast(), as: UTF8.self) + "Z")
        }
        let sign = bytes[bytes.count - 6]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[bytes.count - 3] == UInt8(ascii: ":"),
            let hours = digits(bytes[(bytes.count - 5)..<(bytes.count - 3)]), let minutes = digits(bytes[(bytes.count - 2)...]),
            hours < 24, minutes < 60,
            let local = ISO8601Timestamp.parse(String(decoding: bytes.dropLast(6), as: UTF8.self) + "Z")
        else { return nil }
        let offset = TimeInterval(hours * 3_600 + minutes * 60)
        return local.addingTimeInterval(sign == UInt8(ascii: "+") ? -offset : offset)
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
