import AttestCore
import AttestGuardWire
import AttestTestSupport
import Crypto
import DeviceSimulator
import Foundation
import Testing
@testable import AttestGuardEngine

/// clientData v1 built by the app's side of the wire (``ClientDataV1``, ``RequestTarget``) passes the server's
/// verifier for any request: the signature over the exact bytes, then the binding to the request the gateway
/// received. One changed byte of the body or the target is a mismatch.
struct ClientDataBindingTests {
    static let app = AppIdentity(appId: "ABCDE12345.com.example.attestguard")
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    /// Path and query text: unreserved characters, sub-delimiters, `:@/`, dot segments and empty ones, `%` followed by
    /// hex (which URLComponents escapes again), non-ASCII text and spaces (which it escapes).
    static let pieces = [
        "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":", "@", "/",
        "%2F", "%3F", "%25", "%C3%A9", "%20", "é", "€", "😀", " ", "..", "//",
    ]

    @Test("1,000 seeded requests: the client's clientData verifies and binds; a changed body or target does not")
    func seededRequests() throws {
        var generator = SplitMix64(seed: 0xC11E_D474)
        var key = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "binding", environment: .development).generateKey(0)
        let challenge = Base64Text.urlEncoded((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for _ in 0..<1_000 {
            let method = Self.methods.randomElement(using: &generator)!
            var components = URLComponents()
            components.scheme = "https"
            components.host = "shop.example"
            components.path = "/" + Self.text(using: &generator)
            if Bool.random(using: &generator) { components.query = Self.text(using: &generator) }
            let url = try #require(components.url, "\(components)")
            let target = try #require(RequestTarget.of(url))
            let body = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let bodySha256 = Base64Text.urlEncoded(SHA256.hash(data: body))

            // The app's side: the bytes it signs.
            let signed = ClientDataV1(challenge: challenge, method: method, path: target, bodySha256: bodySha256).bytes
            let assertion = key.assertion(app: Self.app, clientData: signed)

            // The server's side: the signature over those bytes, then the binding to what the gateway received.
            let verdict = AssertionVerifier().verify(assertion, publicKey: key.publicKey, app: Self.app, clientData: signed, previousCounter: 0)
            guard case .valid = verdict else { Issue.record("\(target): \(verdict)"); continue }
            let clientData = try AssertionClientData(Data(signed), format: .v1)
            let received = AssertedRequest(method: method, path: target, bodySha256: bodySha256)
            #expect(try clientData.checkBinding(to: received) == .verified, "\(method) \(target)")

            var changedBody = received
            changedBody.bodySha256 = Base64Text.urlEncoded(SHA256.hash(data: body + [0]))
            #expect(throws: EngineError.self, "\(target)") { try clientData.checkBinding(to: changedBody) }
            var changedTarget = received
            changedTarget.path = target + "x"
            #expect(throws: EngineError.self, "\(target)") { try clientData.checkBinding(to: changedTarget) }
        }
    }

    /// 0-12 pieces: a path or query text as an app's code might write it.
    static func text(using generator: inout SplitMix64) -> String {
        (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }
}
