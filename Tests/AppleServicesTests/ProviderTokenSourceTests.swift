import AppleServices
import AttestCore
import Crypto
import Foundation
import JWTKit
import Testing

struct ProviderTokenSourceTests {
    @Test func testTokenShapeAndSignature() async throws {
        let key = P256.Signing.PrivateKey()
        let credentials = try FakeAppleHarness.credentials(key: key)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.75))
        let source = ProviderTokenSource(credentials: credentials, now: clock.closure)
        let token = try await source.token()

        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try #require(Base64Text.decodeURL(parts[0]))
        let headerJSON = try #require(try JSONSerialization.jsonObject(with: header) as? [String: Any])
        #expect(headerJSON["alg"] as? String == "ES256")
        #expect(headerJSON["kid"] as? String == FakeAppleHarness.keyId)
        let claims = try #require(Base64Text.decodeURL(parts[1]))
        let claimsJSON = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
        #expect(claimsJSON["iss"] as? String == FakeAppleHarness.teamId)
        #expect((claimsJSON["iat"] as? NSNumber)?.doubleValue == 1_800_000_000)

        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation))
        let verified = try await keys.verify(token, as: ProviderTokenClaims.self)
        #expect(verified.iss.value == FakeAppleHarness.teamId)
        #expect(verified.iat.value == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func testCachesUntilMaximumAgeThenRenews() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let source = ProviderTokenSource(credentials: try FakeAppleHarness.credentials(), now: clock.closure)
        #expect(source.maximumAge == .seconds(3000))
        let first = try await source.token()
        clock.advance(by: 49 * 60)
        #expect(try await source.token() == first)
        clock.advance(by: 60)
        let second = try await source.token()
        #expect(second != first)
        clock.advance(by: 10)
        #expect(try await source.token() == second)
    }

    @Test func testCustomAgeAndInvalidate() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let source = ProviderTokenSource(credentials: try FakeAppleHarness.credentials(), maximumAge: .seconds(10), now: clock.closure)
        let first = try await source.token()
        clock.advance(by: 9)
        #expect(try await source.token() == first)
        clock.advance(by: 1)
        let second = try await source.token()
        #expect(second != first)
        await source.invalidate()
        #expect(try await source.token() != second)
    }

    @Test func testRenewsWhenTheClockGoesBack() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let source = ProviderTokenSource(credentials: try FakeAppleHarness.credentials(), now: clock.closure)
        let first = try await source.token()
        clock.advance(by: -120)
        #expect(try await source.token() != first)
    }
}
