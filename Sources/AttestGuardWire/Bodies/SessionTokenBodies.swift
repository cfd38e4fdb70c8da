public import Foundation

// Session tokens (contract: "Session tokens"): what the app gets for one verified assertion, and the keys that verify
// what it got.

/// `POST /v1/app/session-tokens` response: the token, and when it expires (the app renews before then).
public struct SessionTokenResponseBody: Codable, Sendable, Equatable {
    /// The ES256 JWT, sent as `X-AppAttest-Token` on the app's requests to `token` routes.
    public var token: String
    public var expiresAt: Date
    /// The token's lifetime from now, in whole seconds.
    public var expiresIn: Int

    public init(token: String, expiresAt: Date, expiresIn: Int) {
        self.token = token
        self.expiresAt = expiresAt
        self.expiresIn = expiresIn
    }
}

/// `GET /v1/session-tokens/jwks` response: the public keys a session token may be signed with (RFC 7517), the
/// signing key first. Only public keys: the document is served without an API key.
public struct JSONWebKeySetBody: Codable, Sendable, Equatable {
    /// One P-256 public key (RFC 7518 section 6.2).
    public struct Key: Codable, Sendable, Equatable {
        public var kty = "EC"
        public var crv = "P-256"
        public var alg = "ES256"
        public var use = "sig"
        public var kid: String
        /// The point's coordinates, base64url without padding.
        public var x: String
        public var y: String

        public init(kid: String, x: String, y: String) {
            self.kid = kid
            self.x = x
            self.y = y
        }
    }

    public var keys: [Key]

    public init(keys: [Key]) {
        self.keys = keys
    }
}
