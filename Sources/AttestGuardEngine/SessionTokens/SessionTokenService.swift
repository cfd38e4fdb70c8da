public import AttestVocabulary
public import Foundation
public import AttestGuardWire
import Crypto
import JWTKit

/// Issues and verifies session tokens: an app that holds an attested key exchanges one verified assertion for a
/// short-lived ES256 token (``issue(for:appId:)``), which a gateway or backend verifies locally against the published
/// keys (``jwks``) without a store round trip until it expires. The signing keys come from the configuration
/// (``SessionTokenKeys``); the clock is the engine's, so expiry is judged as every other instant is.
public actor SessionTokenService {
    /// What verification found wrong with a token.
    public enum Refusal: Error, Sendable, Hashable {
        /// Not a JWT, not ES256, a `kid` no published key has, or a signature that does not verify.
        case invalid(String)
        /// Past its `exp` (with no tolerance beyond the clock-skew setting).
        case expired(at: Date)
        /// Issued for another app.
        case otherApp(String)
        /// Issued to another user than the one the gateway authenticated.
        case otherUser
        /// Its key was revoked or superseded after it was issued (``RetiredKeyBook``).
        case keyRetired(KeyStatus)
        /// This process has not read the retired keys recently (``RetiredKeyBook/isCurrent``): the token may not be
        /// judged now.
        case retiredKeysUnread

        /// The error code a `token` route refuses with.
        public var code: ErrorCode {
            switch self {
            case .invalid: .sessionTokenInvalid
            case .expired: .sessionTokenExpired
            case .otherApp: .sessionTokenAppMismatch
            case .otherUser: .keyUserMismatch
            case .keyRetired(let status): status == .revoked ? .keyRevoked : .keySuperseded
            case .retiredKeysUnread: .storeUnavailable
            }
        }

        /// Why, for the error body.
        public var message: String {
            switch self {
            case .invalid(let why): "the session token is not valid: \(why)"
            case .expired(let at): "the session token expired at \(at.formatted(.iso8601)); exchange a new assertion for a new one"
            case .otherApp(let app): "the session token was issued for \(app)"
            case .otherUser: "the session token was issued to another user"
            case .keyRetired(let status): "the session token's key was \(status.rawValue) after it was issued; attest a new key"
            case .retiredKeysUnread: "the retired keys could not be read recently; retry shortly"
            }
        }
    }

    public nonisolated let keys: SessionTokenKeys
    private let clock: any EngineClock
    private let clockSkew: TimeInterval
    private let collection = JWTKeyCollection()
    private var prepared = false

    public init(keys: SessionTokenKeys, clock: any EngineClock, clockSkew: TimeInterval) {
        self.keys = keys
        self.clock = clock
        self.clockSkew = max(0, clockSkew)
    }

    /// A token for the attested key of an accepted assertion.
    /// - Parameters:
    ///   - grant: The key, user hash, environment and verdict the assertion established.
    ///   - lifetime: The app's token lifetime.
    public func issue(_ grant: SessionTokenGrant, lifetime: TimeInterval) async throws -> IssuedSessionToken {
        try await prepare()
        let issuedAt = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt.addingTimeInterval(lifetime.rounded(.down))
        let claims = SessionTokenClaims(
            iss: IssuerClaim(value: SessionTokenClaims.issuer), aud: AudienceClaim(value: [grant.appId]),
            sub: SubjectClaim(value: Base64Text.urlEncoded(grant.keyId.bytes)), usr: grant.userHash, env: grant.environment.rawValue,
            dec: (grant.verdict.ruleDecision ?? grant.verdict.decision).rawValue, scr: grant.verdict.score, rsv: grant.verdict.ruleSetVersion, iat: IssuedAtClaim(value: issuedAt), exp: ExpirationClaim(value: expiresAt),
            jti: IDClaim(value: Base64Text.urlEncoded(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }))
        )
        var header = JWTHeader()
        header.alg = "ES256"
        header.kid = keys.signingKid
        header.typ = "JWT"
        let token = try await collection.sign(claims, kid: JWKIdentifier(string: keys.signingKid), header: header)
        return IssuedSessionToken(token: token, expiresAt: expiresAt, claims: claims)
    }

    /// The claims of `token` when it is one of ours, unexpired and for `appId`; otherwise why not.
    public func verify(_ token: String, appId: String) async -> Verdict<SessionTokenClaims, Refusal> {
        do {
            try await prepare()
        } catch {
            return .invalid(.invalid("the session token keys could not be loaded"))
        }
        let claims: SessionTokenClaims
        do {
            claims = try await collection.verify(token, as: SessionTokenClaims.self)
        } catch {
            return .invalid(.invalid("not a session token signed by a published key"))
        }
        guard claims.iss.value == SessionTokenClaims.issuer else { return .invalid(.invalid("issued by \(claims.iss.value.prefix(64))")) }
        guard claims.aud.value.contains(appId) else {
            return .invalid(.otherApp(claims.aud.value.first.map { String($0.prefix(166)) } ?? "-"))
        }
        guard claims.exp.value.addingTimeInterval(clockSkew) > clock.now() else { return .invalid(.expired(at: claims.exp.value)) }
        return .valid(claims)
    }

    /// The published keys as a JSON Web Key Set (RFC 7517): what a gateway fetches to verify tokens itself.
    public nonisolated var jwks: JSONWebKeySetBody {
        JSONWebKeySetBody(keys: keys.published.map { kid, key in
            let point = Array(key.x963Representation)
            return JSONWebKeySetBody.Key(
                kid: kid, x: Base64Text.urlEncoded(point[1...32]), y: Base64Text.urlEncoded(point[33...64])
            )
        })
    }

    /// Puts the keys in jwt-kit's collection once (its `add` is asynchronous).
    private func prepare() async throws {
        guard !prepared else { return }
        await collection.add(ecdsa: try ES256PrivateKey(backing: keys.signing), kid: JWKIdentifier(string: keys.signingKid))
        for (kid, key) in keys.published.dropFirst() {
            await collection.add(ecdsa: try ES256PublicKey(backing: key), kid: JWKIdentifier(string: kid))
        }
        prepared = true
    }
}

/// What an accepted assertion establishes for a session token.
public struct SessionTokenGrant: Sendable, Hashable {
    public var appId: String
    public var keyId: KeyId
    /// The keyed hash of the user (the decision log's), never the id.
    public var userHash: String
    public var environment: AppAttestEnvironment
    /// The verdict of the assertion the token was exchanged for: the token keeps what the rules decided
    /// (`ruleDecision` in monitor mode), so that the app's mode when the token is shown decides what that means.
    public var verdict: RiskVerdict

    public init(appId: String, keyId: KeyId, userHash: String, environment: AppAttestEnvironment, verdict: RiskVerdict) {
        self.appId = appId
        self.keyId = keyId
        self.userHash = userHash
        self.environment = environment
        self.verdict = verdict
    }
}

/// A token as issued: its text, when it expires, and what it says.
public struct IssuedSessionToken: Sendable, Equatable {
    public var token: String
    public var expiresAt: Date
    public var claims: SessionTokenClaims
}
