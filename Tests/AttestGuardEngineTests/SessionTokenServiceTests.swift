@testable import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Crypto
import Foundation
import JWTKit
import Testing

/// Session tokens signed, verified and rotated, against the engine's clock.
@Suite("Session tokens: signing, verification and rotation")
struct SessionTokenServiceTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let shop = "ABCDE12345.com.example.shop"

    static func grant(app: String = shop, decision: Decision = .allow) throws -> SessionTokenGrant {
        SessionTokenGrant(
            appId: app, keyId: try KeyId(bytes: Data(repeating: 9, count: 32)), userHash: "0123abcd", environment: .production,
            verdict: RiskVerdict(decision: decision, score: 35, reasons: [], ruleSetVersion: "sha256:0123456789abcdef")
        )
    }

    @Test("a token verifies for its app with every claim as issued, until it expires")
    func roundTrip() async throws {
        let clock = ManualClock(Self.start)
        let service = SessionTokenService(keys: SessionTokenKeys(signing: P256.Signing.PrivateKey()), clock: clock, clockSkew: 0)
        let issued = try await service.issue(try Self.grant(decision: .review), lifetime: 600)
        #expect(issued.expiresAt == Self.start.addingTimeInterval(600))
        let claims = try await service.verify(issued.token, appId: Self.shop).get()
        #expect(claims == issued.claims)
        #expect(claims.sub.value == Base64Text.urlEncoded(Data(repeating: 9, count: 32)))
        #expect(claims.aud.value == [Self.shop] && claims.iss.value == "attestguard")
        #expect(claims.usr == "0123abcd" && claims.env == "production" && claims.dec == "review")
        #expect(claims.scr == 35 && claims.rsv == "sha256:0123456789abcdef")
        #expect(issued.token.split(separator: ".").count == 3)

        clock.advance(by: 599)
        #expect(await service.verify(issued.token, appId: Self.shop).value != nil)
        clock.advance(by: 1)
        #expect(await service.verify(issued.token, appId: Self.shop).error == .expired(at: issued.expiresAt))
    }

    @Test("the clock-skew tolerance extends the expiry, no further")
    func skew() async throws {
        let clock = ManualClock(Self.start)
        let service = SessionTokenService(keys: SessionTokenKeys(signing: P256.Signing.PrivateKey()), clock: clock, clockSkew: 120)
        let issued = try await service.issue(try Self.grant(), lifetime: 60)
        clock.advance(by: 179)
        #expect(await service.verify(issued.token, appId: Self.shop).value != nil)
        clock.advance(by: 1)
        #expect(await service.verify(issued.token, appId: Self.shop).error == .expired(at: issued.expiresAt))
    }

    @Test("another app's token, a forged one, a tampered one and text that is no token are refused")
    func refusals() async throws {
        let clock = ManualClock(Self.start)
        let keys = SessionTokenKeys(signing: P256.Signing.PrivateKey())
        let service = SessionTokenService(keys: keys, clock: clock, clockSkew: 0)
        let issued = try await service.issue(try Self.grant(), lifetime: 600)
        #expect(await service.verify(issued.token, appId: "ABCDE12345.com.example.news").error == .otherApp(Self.shop))

        // The same claims and kid, signed by a key the server does not have.
        let forger = JWTKeyCollection()
        await forger.add(ecdsa: try ES256PrivateKey(backing: P256.Signing.PrivateKey()), kid: JWKIdentifier(string: keys.signingKid))
        var header = JWTHeader()
        header.alg = "ES256"
        header.kid = keys.signingKid
        let forged = try await forger.sign(issued.claims, header: header)
        #expect(Self.isInvalid(await service.verify(forged, appId: Self.shop)))

        // The payload changed after signing (another app written into it).
        let parts = issued.token.split(separator: ".").map(String.init)
        var payload = try JSONSerialization.jsonObject(with: try #require(Base64Text.decodeURL(parts[1]))) as? [String: Any] ?? [:]
        payload["aud"] = ["ABCDE12345.com.example.news"]
        let tampered = [parts[0], Base64Text.urlEncoded(try JSONSerialization.data(withJSONObject: payload)), parts[2]].joined(separator: ".")
        #expect(Self.isInvalid(await service.verify(tampered, appId: "ABCDE12345.com.example.news")))

        for text in ["", "a.b.c", "not a token", String(repeating: "x", count: 5000)] {
            #expect(Self.isInvalid(await service.verify(text, appId: Self.shop)), "\(text.prefix(20))")
        }
    }

    @Test("rotation: the new signing key keeps the old one's tokens valid while it is a verifying key, and no longer")
    func rotation() async throws {
        let clock = ManualClock(Self.start)
        let old = P256.Signing.PrivateKey()
        let new = P256.Signing.PrivateKey()
        let before = SessionTokenService(keys: SessionTokenKeys(signing: old), clock: clock, clockSkew: 0)
        let oldToken = try await before.issue(try Self.grant(), lifetime: 600)

        let during = SessionTokenService(keys: SessionTokenKeys(signing: new, verifying: [old.publicKey, new.publicKey]), clock: clock, clockSkew: 0)
        #expect(await during.verify(oldToken.token, appId: Self.shop).value != nil, "the old key's token still verifies")
        let newToken = try await during.issue(try Self.grant(), lifetime: 600)
        #expect(newToken.token.split(separator: ".").first != oldToken.token.split(separator: ".").first, "another kid in the header")
        #expect(during.jwks.keys.map(\.kid) == [SessionTokenKeys.kid(of: new.publicKey), SessionTokenKeys.kid(of: old.publicKey)],
                "the signing key first; the signing key given again as a verifying key is not repeated")

        let after = SessionTokenService(keys: SessionTokenKeys(signing: new), clock: clock, clockSkew: 0)
        #expect(Self.isInvalid(await after.verify(oldToken.token, appId: Self.shop)), "the old key dropped: its tokens stop verifying")
        #expect(await after.verify(newToken.token, appId: Self.shop).value != nil)
    }

    @Test("the JWKS holds each key's point, which verifies the tokens of that key")
    func jwksVerifiesTokens() async throws {
        let clock = ManualClock(Self.start)
        let service = SessionTokenService(keys: SessionTokenKeys(signing: P256.Signing.PrivateKey()), clock: clock, clockSkew: 0)
        let issued = try await service.issue(try Self.grant(), lifetime: 600)
        let document = String(decoding: try JSONEncoder().encode(service.jwks), as: UTF8.self)
        let verifier = try await JWTKeyCollection().add(jwksJSON: document)
        let claims = try await verifier.verify(issued.token, as: SessionTokenClaims.self)
        #expect(claims == issued.claims)
        #expect(service.jwks.keys.allSatisfy { $0.kty == "EC" && $0.crv == "P-256" && $0.alg == "ES256" && $0.x.count == 43 && $0.y.count == 43 })
    }

    static func isInvalid(_ verdict: Verdict<SessionTokenClaims, SessionTokenService.Refusal>) -> Bool {
        if case .invalid(.invalid) = verdict { return true }
        return false
    }
}
