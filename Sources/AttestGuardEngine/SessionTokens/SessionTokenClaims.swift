public import JWTKit

/// What a session token says (ES256 JWT; contract: "Session tokens"): who issued it, for which app (`aud`), which
/// attested key (`sub`, base64url), which user (`usr`, the keyed hash the decision log keeps, never the id), the key's
/// environment (`env`), the verdict when it was issued (`dec`, with its score `scr` and rule set `rsv`), when (`iat`),
/// until when (`exp`) and its id (`jti`).
public struct SessionTokenClaims: JWTPayload, Equatable {
    /// The issuer every token names.
    public static let issuer = "attestguard"

    public var iss: IssuerClaim
    public var aud: AudienceClaim
    public var sub: SubjectClaim
    public var usr: String
    public var env: String
    public var dec: String
    public var scr: Double
    public var rsv: String
    public var iat: IssuedAtClaim
    public var exp: ExpirationClaim
    public var jti: IDClaim

    /// Nothing here: the expiry and audience are judged by ``SessionTokenService/verify(_:appId:)`` against the
    /// engine's clock, which jwt-kit's own checks (the wall clock) would not use.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
