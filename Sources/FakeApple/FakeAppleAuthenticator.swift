import AppleServices
import AttestCore
import Foundation
import JWTKit
import Synchronization

/// Checks the provider token on every fake Apple request the way Apple does: an ES256 signature by the
/// configured key, `iss` equal to the Team ID, `kid` equal to the key id when one is configured, and `iat` no
/// older than the maximum age (nor more than a minute ahead) by the fake's clock.
///
/// A client reuses one token for up to an hour, so the claims of tokens whose signature and key id already
/// checked out are remembered (a few, by the exact token text); the issuer and age are checked on every request.
struct FakeAppleAuthenticator: Sendable {
    /// How the token travels: bare for receipts, `Bearer <token>` for DeviceCheck.
    enum Scheme {
        case bare
        case bearer
    }

    private let keys: JWTKeyCollection
    private let configuration: FakeAppleConfiguration
    private let verified = VerifiedTokens()

    /// Parses the key; throws ``FakeAppleError`` when it is not a PEM P-256 public key.
    static func parseKey(_ pem: String) throws -> ES256PublicKey {
        do {
            return try ES256PublicKey(pem: pem)
        } catch {
            throw FakeAppleError(.invalidProviderKey, "the provider public key is not a PEM P-256 public key")
        }
    }

    init(configuration: FakeAppleConfiguration) async throws {
        let key = try Self.parseKey(configuration.providerPublicKeyPEM)
        self.keys = JWTKeyCollection()
        await keys.add(ecdsa: key)
        self.configuration = configuration
    }

    /// `nil` when the `Authorization` header carries an acceptable token, else why not.
    func failure(authorization: String?, scheme: Scheme) async -> String? {
        guard let authorization, !authorization.isEmpty else { return "missing Authorization header" }
        let token: String
        switch scheme {
        case .bare:
            guard !authorization.lowercased().hasPrefix("bearer ") else { return "the token must be sent bare, without Bearer" }
            token = authorization
        case .bearer:
            guard authorization.lowercased().hasPrefix("bearer ") else { return "the token must be sent as Bearer" }
            token = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        let claims: ProviderTokenClaims
        if let remembered = verified.claims(of: token) {
            claims = remembered
        } else {
            do {
                claims = try await keys.verify(token, as: ProviderTokenClaims.self)
            } catch {
                return "invalid authentication token"
            }
            if let keyId = configuration.keyId {
                guard let header = Self.header(of: token), header.kid == keyId else { return "unknown key id" }
            }
            verified.remember(token, claims: claims)
        }
        guard claims.iss.value == configuration.teamId else { return "the token's issuer is not the team" }
        let age = configuration.now().timeIntervalSince(claims.iat.value)
        let (seconds, attoseconds) = configuration.maximumTokenAge.components
        guard age <= TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18 else { return "expired authentication token" }
        guard age >= -60 else { return "the token is issued in the future" }
        return nil
    }

    private struct Header: Decodable {
        var kid: String?
    }

    private static func header(of token: String) -> Header? {
        guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let bytes = Base64Text.decodeURL(String(first))
        else { return nil }
        return try? JSONDecoder().decode(Header.self, from: bytes)
    }
}

/// The claims of recently verified provider tokens, keyed by the token text; forgets everything when full.
private final class VerifiedTokens: Sendable {
    private static let capacity = 64
    private let tokens = Mutex<[String: ProviderTokenClaims]>([:])

    func claims(of token: String) -> ProviderTokenClaims? {
        tokens.withLock { $0[token] }
    }

    func remember(_ token: String, claims: ProviderTokenClaims) {
        tokens.withLock { tokens in
            if tokens.count >= Self.capacity { tokens.removeAll(keepingCapacity: true) }
            tokens[token] = claims
        }
    }
}
