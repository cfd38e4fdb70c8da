public import Foundation
import JWTKit

/// Signs and caches the ES256 provider token Apple's App Attest and DeviceCheck servers require.
///
/// The token's header is `{"alg": "ES256", "kid": <key id>}` and its claims `{"iss": <team id>, "iat": <now, whole
/// seconds>}`. One token is reused until it is ``maximumAge`` old (Apple rejects tokens older than an hour), or
/// until ``invalidate()`` after Apple answered 401.
public actor ProviderTokenSource {
    /// The credentials tokens are signed with.
    public nonisolated let credentials: AppleProviderCredentials
    /// How long one token is reused.
    public nonisolated let maximumAge: Duration
    private let now: @Sendable () -> Date
    private let keys: JWTKeyCollection
    private var cached: (token: String, issuedAt: Date)?
    private var keyAdded = false

    /// - Parameters:
    ///   - credentials: The team id, key id and key.
    ///   - maximumAge: How long a token is reused; 50 minutes by default, well under Apple's hour.
    ///   - now: The clock.
    public init(
        credentials: AppleProviderCredentials,
        maximumAge: Duration = .seconds(50 * 60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.credentials = credentials
        self.maximumAge = maximumAge
        self.now = now
        self.keys = JWTKeyCollection()
    }

    /// The current token, signed anew when the cached one is too old (or from the future, if the clock went back).
    /// - Throws: ``ProviderTokenError`` when signing fails.
    public func token() async throws -> String {
        let instant = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        if let cached {
            let age = instant.timeIntervalSince(cached.issuedAt)
            if age >= 0, age < Self.seconds(maximumAge) { return cached.token }
        }
        let token: String
        do {
            if !keyAdded {
                await keys.add(ecdsa: credentials.privateKey)
                keyAdded = true
            }
            var header = JWTHeader()
            header.alg = "ES256"
            header.kid = credentials.keyId
            let claims = ProviderTokenClaims(iss: IssuerClaim(value: credentials.teamId), iat: IssuedAtClaim(value: instant))
            token = try await keys.sign(claims, header: header)
        } catch {
            throw ProviderTokenError(reason: "signing the provider token failed: \(type(of: error))")
        }
        cached = (token, instant)
        return token
    }

    /// Drops the cached token so the next ``token()`` signs a new one (after Apple answered 401).
    public func invalidate() {
        cached = nil
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
