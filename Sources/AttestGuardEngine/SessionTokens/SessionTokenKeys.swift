public import Crypto
import Foundation
import AttestGuardWire

/// The keys session tokens are signed and verified with: the current signing key, and the earlier signing keys that
/// still verify until the tokens they signed expire, so that a key is rotated without cutting a session short (the
/// operator adds the new key as the signing key and keeps the old one as a verifying key for at least the longest
/// token lifetime, then drops it).
///
/// Each key is named by its `kid`: the first 16 characters of the base64url SHA-256 of its public key (X9.63), so the
/// same key has the same name on every server, in every token header and in the JWKS, with nothing to configure.
public struct SessionTokenKeys: Sendable {
    /// Signs every new token.
    public let signing: P256.Signing.PrivateKey
    /// Earlier signing keys whose tokens still verify (the signing key's own public key is not repeated here).
    public let verifying: [P256.Signing.PublicKey]

    public init(signing: P256.Signing.PrivateKey, verifying: [P256.Signing.PublicKey] = []) {
        self.signing = signing
        let signingKid = Self.kid(of: signing.publicKey)
        var seen: Set<String> = [signingKid]
        self.verifying = verifying.filter { seen.insert(Self.kid(of: $0)).inserted }
    }

    /// The name of `key` in token headers and the JWKS.
    public static func kid(of key: P256.Signing.PublicKey) -> String {
        String(Base64Text.urlEncoded(SHA256.hash(data: key.x963Representation)).prefix(16))
    }

    /// The signing key's name.
    public var signingKid: String { Self.kid(of: signing.publicKey) }

    /// Every key a valid token may name, by kid: the signing key first, then the earlier ones.
    public var published: [(kid: String, key: P256.Signing.PublicKey)] {
        [(signingKid, signing.publicKey)] + verifying.map { (Self.kid(of: $0), $0) }
    }
}
