import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The rollout limits how many devices call Apple's `attestKey`: a user attests only when `attestation-required`
/// says so (asked once a session) or a route answers `assertion_missing`.
struct RolloutAdviceTests {
    @Test("an app at 0 %: prepare and send attest nothing, and requests go without App Attest headers")
    func notAdvised() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.advise(attest: false)
        let client = scripted.client()
        #expect(try await client.prepare() == nil)
        for _ in 0..<3 {
            let (_, response) = try await client.send(ScriptedClient.request("POST"))
            #expect(response.statusCode == 200)
        }
        let calls = await scripted.provider.calls
        #expect(calls[.attestKey, default: 0] == 0 && calls[.generateKey, default: 0] == 0)
        #expect(scripted.gateway.attestations.isEmpty)
        #expect(scripted.gateway.protected.allSatisfy { request in
            AppAttestHeader.allCases.allSatisfy { request.value(forHTTPHeaderField: $0.rawValue) == nil }
        })
        let asked = scripted.gateway.sent.filter { $0.url?.lastPathComponent == AppFacingRoute.attestationRequired.pathComponent }
        #expect(asked.count == 1, "asked once a session")
    }

    @Test("an app at 100 %: the first send attests and signs")
    func advised() async throws {
        let scripted = ScriptedClient()
        let (_, response) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(response.statusCode == 200)
        #expect(await scripted.provider.calls[.attestKey] == 1)
        #expect(scripted.gateway.protected.first?.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != nil)
    }

    @Test("not advised, then a route answers assertion_missing: one key is attested and the request signed again, once")
    func attestsOnDemand() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.advise(attest: false)
        scripted.gateway.answerProtected(.refusal(401, code: "assertion_missing"))
        let (_, response) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(response.statusCode == 200)
        #expect(await scripted.provider.calls[.attestKey] == 1)
        let protected = scripted.gateway.protected
        #expect(protected.count == 2)
        #expect(protected.first?.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) == nil)
        #expect(protected.last?.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != nil)
        // A second refusal of the signed request is the app's to see: no loop.
        scripted.gateway.answerProtected(.refusal(401, code: "assertion_missing"))
        let (_, again) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(again.statusCode == 401)
    }
}
