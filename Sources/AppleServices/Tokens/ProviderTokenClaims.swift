public import JWTKit

/// The claims of an Apple provider token: `iss` (the Team ID) and `iat` (issued at, whole seconds).
///
/// Signature checks are the verifier's business; ``verify(using:)`` checks nothing further because the
/// token's age is judged against the verifier's own clock (Apple rejects tokens older than an hour).
public struct ProviderTokenClaims: JWTPayload, Equatable {
    /// The Team ID.
    public var iss: IssuerClaim
    /// When the token was issued.
    public var iat: IssuedAtClaim

    public init(iss: IssuerClaim, iat: IssuedAtClaim) {
        self.iss = iss
        self.iat = iat
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
