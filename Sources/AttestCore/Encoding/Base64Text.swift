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
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if normalized.hasSuffix("==") {
            normalized.removeLast(2)
        } else if normalized.hasSuffix("=") {
            normalized.removeLast()
        }
        guard normalized.count % 4 != 1 else { return nil }
        normalized += String(repeating: "=", count: (4 - normalized.count % 4) % 4)
        return Data(base64Encoded: normalized)
    }
}
