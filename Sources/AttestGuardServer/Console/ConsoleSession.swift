import AttestGuardWire
import Crypto
import Foundation

/// A console session as its cookie carries it: the API key's name and the session's expiry, signed with the
/// console's secret (HMAC-SHA-256). The MAC also covers the digest of the key's secret, so that a session ends when
/// the key's secret changes; the key itself never leaves the login request.
///
/// The cookie's value is `v1.<name, base64url>.<expiry, seconds since 1970>.<MAC, base64url>`. Nothing in it is
/// trusted but the name and expiry the MAC vouches for: every request looks the key up again and checks its scopes
/// and apps as configured now.
struct ConsoleSession: Sendable, Equatable {
    /// The cookie's name.
    static let cookieName = "attestguard_console"
    /// The longest cookie value read; anything longer is no session.
    static let maximumLength = 512

    var keyName: String
    var expiresAt: Date

    /// The cookie's value for this session.
    func token(key: SymmetricKey, keySecretDigest: Data) -> String {
        let expiry = String(Int64(expiresAt.timeIntervalSince1970.rounded(.down)))
        let name = Base64Text.urlEncoded(Array(keyName.utf8))
        let mac = Self.mac(name: name, expiry: expiry, keySecretDigest: keySecretDigest, key: key)
        return "v1.\(name).\(expiry).\(mac)"
    }

    /// The session a cookie value names when its MAC is right for the named key and it has not expired; `nil`
    /// otherwise (a forged, altered, expired or foreign cookie: the caller logs in again).
    /// - Parameter secretDigest: The SHA-256 of the named key's secret, `nil` when no key has that name.
    static func verify(
        _ token: String, key: SymmetricKey, now: Date, secretDigest: (String) -> Data?
    ) -> ConsoleSession? {
        guard token.utf8.count <= maximumLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "v1", let nameBytes = Base64Text.decodeURL(parts[1]),
            let name = String(data: nameBytes, encoding: .utf8), let seconds = Int64(parts[2]), parts[2] == String(seconds),
            let digest = secretDigest(name)
        else { return nil }
        let expected = mac(name: parts[1], expiry: parts[2], keySecretDigest: digest, key: key)
        guard constantTimeEquals(Array(expected.utf8), Array(parts[3].utf8)) else { return nil }
        let expiresAt = Date(timeIntervalSince1970: Double(seconds))
        guard now < expiresAt else { return nil }
        return ConsoleSession(keyName: name, expiresAt: expiresAt)
    }

    private static func mac(name: String, expiry: String, keySecretDigest: Data, key: SymmetricKey) -> String {
        var message = Data("attestguard-console-v1|\(name)|\(expiry)|".utf8)
        message.append(keySecretDigest)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return Base64Text.urlEncoded(code.withUnsafeBytes { Array($0) })
    }

    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
