import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// What the client does with a debug token: where the device cannot attest (the Simulator), every request carries it
/// and nothing is attested; on a device that can, it is ignored; a refused debug token is surfaced, never retried.
struct DebugTokenClientTests {
    static let token = "agdt_" + String(repeating: "A", count: 43)

    static func header(_ request: URLRequest, _ header: AppAttestHeader) -> String? {
        request.value(forHTTPHeaderField: header.rawValue)
    }

    @Test func aDeviceThatCannotAttestCarriesTheDebugTokenAndAttestsNothing() async throws {
        let scripted = ScriptedClient(supported: false)
        let events = Mutex<[ClientEvent]>([])
        let client = scripted.client(sessionTokens: true, debugToken: Self.token, onEvent: { event in events.withLock { $0.append(event) } })
        #expect(try await client.prepare() == nil)
        for request in [ScriptedClient.request("POST"), ScriptedClient.request("GET", "/api/feed", body: nil)] {
            #expect(try await client.send(request).1.statusCode == 200)
        }
        let signed = try await client.signed(ScriptedClient.request("POST"))
        for request in scripted.gateway.protected + [signed] {
            #expect(Self.header(request, .sessionToken) == Self.token)
            #expect(Self.header(request, .assertion) == nil && Self.header(request, .keyId) == nil && Self.header(request, .status) == nil)
        }
        #expect(scripted.gateway.exchanges.isEmpty)
        #expect(await scripted.provider.calls[.generateKey] == nil)
        #expect(events.withLock { $0 } == [.debugTokenCarried])
    }

    @Test func aDeviceThatCanAttestIgnoresTheDebugToken() async throws {
        let scripted = ScriptedClient()
        let events = Mutex<[ClientEvent]>([])
        let client = scripted.client(debugToken: Self.token, onEvent: { event in events.withLock { $0.append(event) } })
        #expect(try await client.send(ScriptedClient.request("POST")).1.statusCode == 200)
        let sent = try #require(scripted.gateway.protected.first)
        #expect(Self.header(sent, .sessionToken) == nil && Self.header(sent, .assertion) != nil)
        #expect(events.withLock { $0 }.contains(.debugTokenIgnored))
    }

    @Test(arguments: ["debug_token_revoked", "debug_token_expired", "debug_token_invalid", "debug_tokens_not_enabled", "assertion_missing"])
    func aRefusedDebugTokenIsSurfacedNotRetried(code: String) async throws {
        let scripted = ScriptedClient(supported: false)
        scripted.gateway.answerProtected(.refusal(401, code: code))
        let client = scripted.client(debugToken: Self.token)
        let (_, response) = try await client.send(ScriptedClient.request("POST"))
        #expect(response.statusCode == 401)
        #expect(scripted.gateway.protected.count == 1)
        #expect(await scripted.provider.calls[.generateKey] == nil)
    }
}
