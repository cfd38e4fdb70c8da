import AttestGuardWire
import Crypto
import Foundation

/// The text of a debug token as its developer holds it, `agdt_` and 32 random bytes in base64url, and the public id an
/// admin names it by, `dbg_` and 9 random bytes in base64url. The store keeps only the secret's SHA-256, so a leaked
/// database holds no token that passes.
public enum DebugTokenSecret {
    /// What every debug token starts with: `X-AppAttest-Token` carries debug tokens and session tokens (JWTs, which
    /// start with `ey`), and forward-auth tells them apart by it.
    public static let prefix = "agdt_"
    static let idPrefix = "dbg_"
    /// `agdt_` and 43 base64url characters.
    static let length = prefix.utf8.count + 43

    /// A new token: its secret and its id.
    static func make() -> (secret: String, id: String) {
        let secret = prefix + Base64Text.urlEncoded(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        let id = idPrefix + Base64Text.urlEncoded(SymmetricKey(size: SymmetricKeySize(bitCount: 72)).withUnsafeBytes { Array($0) })
        return (secret, id)
    }

    /// Whether `text` is meant as a debug token rather than a session token.
    public static func isDebugToken(_ text: String) -> Bool {
        text.hasPrefix(prefix)
    }

    /// The SHA-256 the store keys a token by, or `nil` for text that is not a debug token's shape.
    static func digest(of text: String) -> Data? {
        guard text.utf8.count == length, isDebugToken(text), Base64Text.decodeURL(String(text.dropFirst(prefix.count)))?.count == 32 else {
            return nil
        }
        return Data(SHA256.hash(data: Data(text.utf8)))
    }

    /// Whether `text` is a debug token's id (`dbg_` and 12 base64url characters).
    static func isId(_ text: String) -> Bool {
        text.utf8.count == idPrefix.utf8.count + 12 && text.hasPrefix(idPrefix)
            && Base64Text.decodeURL(String(text.dropFirst(idPrefix.count)))?.count == 9
    }
}
