import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What `send` does with each answer: which refusals it signs again for, once; what it never sends twice.
struct SendRulesTests {
    @Test func aNonIdempotentRequestIsNotSentAgainAfterATransportError() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.transportFailure)
        await #expect {
            _ = try await scripted.client().send(ScriptedClient.request("POST"))
        } throws: { ($0 as? AttestGuardClientError)?.code == .transport }
        #expect(scripted.gateway.protected.count == 1)
    }

    @Test func anIdempotentRequestIsSentOnceMoreWithANewSignature() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.transportFailure, .transportFailure)
        await #expect(throws: AttestGuardClientError.self) {
            _ = try await scripted.client().send(ScriptedClient.request("PUT"))
        }
        let sent = scripted.gateway.protected
        #expect(sent.count == 2)
        #expect(sent[0].value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != sent[1].value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue))
    }

    @Test(arguments: ["challenge_expired", "challenge_used"])
    func aChallengeRefusalIsSignedAgainOnce(code: String) async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(409, code: code), .refusal(409, code: code))
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 409)
        #expect(scripted.gateway.protected.count == 2)
        #expect(await scripted.provider.calls[.attestKey] == 1)
    }

    @Test func anAlreadyAcceptedPurchaseIsNeverSentAgainAndMayHaveSucceeded() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(409, code: "assertion_already_accepted"))
        await #expect {
            _ = try await scripted.client().send(ScriptedClient.request("POST"))
        } throws: { error in
            let error = error as? AttestGuardClientError
            return error?.code == .mayHaveSucceeded && error?.answer?.code == .assertionAlreadyAccepted
        }
        #expect(scripted.gateway.protected.count == 1)
    }

    @Test func anAlreadyAcceptedIdempotentRequestIsSignedAgainOnce() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(409, code: "assertion_already_accepted"), .refusal(409, code: "assertion_already_accepted"))
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("GET", body: nil))
        #expect(answer.statusCode == 409)
        #expect(scripted.gateway.protected.count == 2)
    }

    @Test func anUpstreamsErrorBodyIsNeverAReasonToSendAgain() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.upstreamError(409, code: "challenge_used"))
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 409)
        #expect(scripted.gateway.protected.count == 1)
    }

    @Test func aLostCounterRaceIsSignedAgainAFewTimes() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(422, code: "counter_not_increasing"), .refusal(422, code: "counter_not_increasing"), .status(200))
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 200)
        #expect(scripted.gateway.protected.count == 3)
    }

    @Test func aCounterRaceLostFourTimesIsReturned() async throws {
        let scripted = ScriptedClient()
        for _ in 0..<4 { scripted.gateway.answerProtected(.refusal(422, code: "counter_not_increasing")) }
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 422)
        #expect(scripted.gateway.protected.count == 4)
    }

    @Test(arguments: ["key_not_found", "key_superseded"])
    func aKeyTheServerDoesNotHoldIsReplacedOnce(code: String) async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(401, code: code), .refusal(401, code: code))
        let (_, answer) = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 401)
        #expect(scripted.gateway.protected.count == 2)
        #expect(scripted.gateway.attestations.count == 2)
        let keys = scripted.gateway.protected.map { $0.value(forHTTPHeaderField: AppAttestHeader.keyId.rawValue) }
        #expect(keys[0] != keys[1])
    }

    @Test func aKeyRefusedWithInvalidInputTwiceIsReplacedOnceASession() async throws {
        let scripted = ScriptedClient()
        let client = scripted.client()
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.attestations.count == 1)
        // The first refusal is a plain failure: the key stays.
        await scripted.provider.failNext(.generateAssertion, with: .invalidInput, times: 1)
        await #expect { _ = try await client.send(ScriptedClient.request("POST")) } throws: { ($0 as? AttestGuardClientError)?.code == .assertionFailed }
        #expect(scripted.gateway.attestations.count == 1)
        // The same key refused again: a dead key, replaced by one new key, and the request signed with it.
        await scripted.provider.failNext(.generateAssertion, with: .invalidInput, times: 1)
        let (_, answer) = try await client.send(ScriptedClient.request("POST"))
        #expect(answer.statusCode == 200)
        #expect(scripted.gateway.attestations.count == 2)
        // Bounded: a device refusing every key's assertions gets no second replacement this session.
        await scripted.provider.failNext(.generateAssertion, with: .invalidInput, times: 2)
        await #expect { _ = try await client.send(ScriptedClient.request("POST")) } throws: { ($0 as? AttestGuardClientError)?.code == .assertionFailed }
        await #expect { _ = try await client.send(ScriptedClient.request("POST")) } throws: { ($0 as? AttestGuardClientError)?.code == .assertionFailed }
        #expect(scripted.gateway.attestations.count == 2)
    }

    @Test func aRevokedKeySurfacesAndIsKept() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerProtected(.refusal(403, code: "key_revoked"))
        await #expect {
            _ = try await scripted.client().send(ScriptedClient.request("POST"))
        } throws: { ($0 as? AttestGuardClientError)?.code == .keyRevoked }
        #expect(scripted.gateway.protected.count == 1)
        #expect(try scripted.keyStore.load(account: "alice")?.registered == true)
    }

    @Test func aStreamedBodyIsRefusedBeforeAnythingIsSent() async throws {
        let scripted = ScriptedClient()
        var request = ScriptedClient.request("POST", body: nil)
        request.httpBodyStream = InputStream(data: Data("streamed".utf8))
        await #expect {
            _ = try await scripted.client().send(request)
        } throws: { ($0 as? AttestGuardClientError)?.code == .bodyStreamUnsupported }
        #expect(scripted.gateway.sent.isEmpty)
    }

    @Test(arguments: [
        ("https://shop.example/api/a#fragment", "/api/a"),
        ("https://shop.example?view=1", "/?view=1"),
        ("https://shop.example/api/a?", "/api/a?"),
        ("https://shop.example", "/"),
        ("https://shop.example/api/%7Bid%7D/x?a=%2F&b=%3F&c", "/api/%7Bid%7D/x?a=%2F&b=%3F&c"),
    ])
    func theRequestTargetIsWhatGoesOnTheRequestLine(url: String, target: String) async throws {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "GET"
        let signed = try await ScriptedClient().client().signed(request)
        let clientData = try #require(signed.value(forHTTPHeaderField: AppAttestHeader.clientData.rawValue).flatMap { Base64Text.decodeURL($0) })
        #expect(try ClientDataV1(parsing: Array(clientData)).path == target)
    }

    @Test func theSignatureCoversTheRequestTargetURLSessionSends() async throws {
        let scripted = ScriptedClient()
        let signed = try await scripted.client().signed(ScriptedClient.request("DELETE", "/api/x%2Fy/caf%C3%A9?q=a%20b&r=%3F", body: nil))
        let clientData = try #require(signed.value(forHTTPHeaderField: AppAttestHeader.clientData.rawValue).flatMap { Base64Text.decodeURL($0) })
        let parsed = try ClientDataV1(parsing: Array(clientData))
        #expect(parsed.method == "DELETE")
        #expect(parsed.path == "/api/x%2Fy/caf%C3%A9?q=a%20b&r=%3F")
        #expect(parsed.bodySha256 == "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
    }
}
