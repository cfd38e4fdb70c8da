import AttestGuardWire
import AttestVocabulary
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import AttestGuardRuntime

/// Who may use the console and for how long: exchanges an `analyst` or `admin` API key for a signed session cookie,
/// and reads the session back from a request, looking the key up again each time (it may have lost its scope, its
/// apps or its place in the configuration since the login).
struct ConsoleAuthority: Sendable {
    /// The scopes that may use the console.
    static let scopes: Set<Scope> = [.analyst, .admin]

    let ring: APIKeyRing
    let signingKey: SymmetricKey
    let lifetime: TimeInterval
    /// Sessions a logout ended on this process.
    let logouts = ConsoleLogouts()

    /// - Parameter settings: The session secret (its SHA-256 is the HMAC key; none: a random key for this process)
    ///   and the session's lifetime.
    init(ring: APIKeyRing, settings: ConsoleSettings) {
        self.ring = ring
        if let secret = settings.sessionSecret {
            signingKey = SymmetricKey(data: SHA256.hash(data: Data(secret.utf8)))
        } else {
            signingKey = SymmetricKey(size: .bits256)
        }
        lifetime = TimeInterval(settings.sessionMinutes) * 60
    }

    /// What a login with `secret` gets.
    enum Login {
        case session(APIKey, cookie: String)
        /// No configured key has this secret.
        case unknownKey
        /// The key lacks both console scopes.
        case lacksScope(APIKey)
    }

    func login(secret: String, now: Date) -> Login {
        guard let key = ring.key(forBearer: secret) else { return .unknownKey }
        guard !key.scopes.isDisjoint(with: Self.scopes) else { return .lacksScope(key) }
        let session = ConsoleSession(keyName: key.name, expiresAt: now.addingTimeInterval(lifetime))
        return .session(key, cookie: cookie(session.token(key: signingKey, keySecretDigest: key.secretSHA256), maxAge: Int(lifetime)))
    }

    /// The API key of the request's session, when its cookie is valid now and the key still has a console scope.
    func key(of request: Request, now: Date) -> APIKey? {
        guard let token = Self.cookieValue(ConsoleSession.cookieName, in: request.headers), !logouts.isEnded(token) else { return nil }
        let session = ConsoleSession.verify(token, key: signingKey, now: now) { name in ring.key(named: name)?.secretSHA256 }
        guard let session, let key = ring.key(named: session.keyName), !key.scopes.isDisjoint(with: Self.scopes) else { return nil }
        return key
    }

    /// The token the console's state-changing forms carry in a hidden `csrf` field: an HMAC of the request's session
    /// cookie under the console's secret, so only a page drawn for this session holds it (another site can neither
    /// read it nor make it). `nil` without a session cookie.
    func formToken(of request: Request) -> String? {
        guard let cookie = Self.cookieValue(ConsoleSession.cookieName, in: request.headers) else { return nil }
        let code = HMAC<SHA256>.authenticationCode(for: Data("attestguard-console-form-v1|\(cookie)".utf8), using: signingKey)
        return Base64Text.urlEncoded(code.withUnsafeBytes { Array($0) })
    }

    /// Refuses (403) a state-changing form posted from another site (``ConsoleRoutes/checkOrigin(_:)``) or without
    /// this session's ``formToken(of:)``.
    func checkForm(_ request: Request, token: String?) throws {
        try ConsoleRoutes.checkOrigin(request)
        guard let expected = formToken(of: request), let token,
            ConsoleSession.constantTimeEquals(Array(expected.utf8), Array(token.utf8))
        else {
            throw APIError(.forbidden, code: .forbidden, "the form is not one this console drew for your session: reload the page and send it again")
        }
    }

    /// Ends the request's session on this process, if it has a valid one: its cookie opens nothing any more.
    func logOut(_ request: Request, now: Date) {
        guard let token = Self.cookieValue(ConsoleSession.cookieName, in: request.headers),
            let session = ConsoleSession.verify(token, key: signingKey, now: now, secretDigest: { name in ring.key(named: name)?.secretSHA256 })
        else { return }
        logouts.end(token, expiresAt: session.expiresAt, now: now)
    }

    /// The `Set-Cookie` value that ends the session in the browser.
    var clearingCookie: String { cookie("", maxAge: 0) }

    /// A session cookie: sent back only to `/console` over HTTPS (or to loopback), never read by scripts, never sent
    /// with a request another site starts.
    private func cookie(_ value: String, maxAge: Int) -> String {
        "\(ConsoleSession.cookieName)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Strict"
    }

    /// The first value of cookie `name` in the request's `Cookie` headers.
    static func cookieValue(_ name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }
}
