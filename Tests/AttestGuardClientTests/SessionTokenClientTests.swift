import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What the client does with session tokens: one assertion buys a token that the following requests carry, renewed
/// before it expires; a route that wants an assertion gets one from then on; a refused token is replaced once; a
/// failing or token-less server is not asked in a loop.
struct SessionTokenClientTests {
    static func tokens(_ requests: [URLRequest]) -> [String?] {
        requests.map { $0.value(forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue) }
    }

    static func assertions(_ requests: [URLRequest]) -> [String?] {
        requests.map { $0.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) }
    }

    @Test func oneAssertionBuysATokenTheNextRequestsCarry() async throws {
        let scripted = ScriptedClient()
        let client = scripted.client(sessionTokens: true)
        for _ in 0..<3 { #expect(try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil)).1.statusCode == 200) }
        let exchange = try #require(scripted.gateway.exchanges.first)
        #expect(scripted.gateway.exchanges.count == 1)
        #expect(exchange.httpMethod == "POST" && exchange.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != nil)
        #expect(Self.tokens(scripted.gateway.protected) == ["token-1", "token-1", "token-1"])
        #expect(Self.assertions(scripted.gateway.protected) == [nil, nil, nil])
        #expect(await scripted.provider.calls[.generateAssertion] == 1)
    }

    @Test func aTokenIsRenewedWhenAFifthOfItsLifeIsLeft() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.issueTokens(lasting: 300)
        let client = scripted.client(sessionTokens: true)
        _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        scripted.clock.advance(seconds: 239)
        _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        scripted.clock.advance(seconds: 2)
        _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        #expect(Self.tokens(scripted.gateway.protected) == ["token-1", "token-1", "token-2"])
        #expect(scripted.gateway.exchanges.count == 2)
    }

    @Test func aRouteThatAsksForAnAssertionGetsOneFromThenOn() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(401, code: "assertion_missing"))
        let client = scripted.client(sessionTokens: true)
        #expect(try await client.send(ScriptedClient.request("POST", "/api/promos/claim?ref=1")).1.statusCode == 200)
        #expect(try await client.send(ScriptedClient.request("POST", "/api/promos/claim?ref=2")).1.statusCode == 200)
        #expect(try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil)).1.statusCode == 200)
        let sent = scripted.gateway.protected
        #expect(Self.tokens(sent) == ["token-1", nil, nil, "token-1"])
        #expect(Self.assertions(sent).map { $0 != nil } == [false, true, true, false])
    }

    @Test(arguments: ["session_token_expired", "session_token_invalid", "session_token_app_mismatch", "key_user_mismatch"])
    func aRefusedTokenIsReplacedOnce(code: String) async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(401, code: code), .refusal(401, code: code))
        let client = scripted.client(sessionTokens: true)
        let (_, answer) = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        #expect(answer.statusCode == 401, "a second refusal of a new token is the app's answer")
        #expect(Self.tokens(scripted.gateway.protected) == ["token-1", "token-2"])
    }

    @Test func aFailingExchangeIsLeftAloneForTheCooldown() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerSessionTokens(.refusal(503, code: "store_unavailable"), .transportFailure)
        let client = scripted.client(sessionTokens: true)
        for _ in 0..<4 { #expect(try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil)).1.statusCode == 200) }
        #expect(scripted.gateway.exchanges.count == 1)
        #expect(Self.tokens(scripted.gateway.protected) == [nil, nil, nil, nil])
        #expect(Self.assertions(scripted.gateway.protected).allSatisfy { $0 != nil })
        scripted.clock.advance(seconds: 61)
        _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        scripted.clock.advance(seconds: 61)
        _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
        #expect(scripted.gateway.exchanges.count == 3)
        #expect(Self.tokens(scripted.gateway.protected).last == "token-1")
    }

    @Test func aServerWithoutTokensIsNotAskedAgain() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerSessionTokens(.refusal(404, code: "session_tokens_not_enabled"))
        let client = scripted.client(sessionTokens: true)
        for _ in 0..<3 {
            _ = try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil))
            scripted.clock.advance(seconds: 3_600)
        }
        #expect(scripted.gateway.exchanges.count == 1)
        #expect(Self.tokens(scripted.gateway.protected) == [nil, nil, nil])
    }

    @Test func concurrentRequestsShareOneExchange() async throws {
        let scripted = ScriptedClient()
        let client = scripted.client(sessionTokens: true)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await client.send(ScriptedClient.request("GET", "/api/feed", body: nil)).1.statusCode } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(scripted.gateway.exchanges.count == 1)
        #expect(Set(Self.tokens(scripted.gateway.protected)) == ["token-1"])
    }
}
