import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The key's life on the device: attested once, retried with the same key, given up for a while, and the
/// attestation hash convention named when the server disagrees.
struct KeyLifecycleTests {
    @Test func concurrentRequestsShareOneAttestation() async throws {
        let scripted = ScriptedClient()
        let client = scripted.client()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await client.send(ScriptedClient.request("POST")) } }
            try await group.waitForAll()
        }
        let calls = await scripted.provider.calls
        #expect(calls[.generateKey] == 1 && calls[.attestKey] == 1)
        #expect(scripted.gateway.attestations.count == 1)
        #expect(Set(scripted.gateway.protected.map { $0.value(forHTTPHeaderField: AppAttestHeader.keyId.rawValue) }).count == 1)
    }

    @Test func serverUnavailableIsRetriedWithTheSameKey() async throws {
        let scripted = ScriptedClient()
        await scripted.provider.failNext(.attestKey, with: .serverUnavailable, times: 3)
        #expect(try await scripted.client().prepare() == .supported)
        let calls = await scripted.provider.calls
        #expect(calls[.generateKey] == 1 && calls[.attestKey] == 4)
        #expect(scripted.clock.waits == [1, 2, 4])
        #expect(scripted.gateway.challenges.count == 1, "the challenge is kept while it is valid")
    }

    @Test func attestationGivesUpForACooldownAndRequestsSayThrottled() async throws {
        let scripted = ScriptedClient()
        await scripted.provider.failNext(.attestKey, with: .serverUnavailable, times: 4)
        let client = scripted.client(retry: RetryPolicy(attempts: 4, attestationCooldown: 300))
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.protected.last?.value(forHTTPHeaderField: AppAttestHeader.status.rawValue) == AppAttestStatus.throttled.rawValue)
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(await scripted.provider.calls[.attestKey] == 4, "no new attempt during the cooldown")
        scripted.clock.advance(seconds: 301)
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(await scripted.provider.calls[.attestKey] == 5)
        #expect(scripted.gateway.protected.last?.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != nil)
        #expect(try scripted.keyStore.load(account: "alice")?.registered == true)
        #expect(await scripted.provider.calls[.generateKey] == 1, "the same key throughout")
    }

    @Test func aRefusedBuildIsNotAttestedAgainInThisProcess() async throws {
        for code in ["validation_category_not_allowed", "bundle_version_below_minimum", "authenticator_extensions_missing"] {
            let scripted = ScriptedClient()
            scripted.gateway.answerAttestations(.upstreamError(422, code: code))
            let client = scripted.client()
            await #expect(throws: AttestGuardClientError.self) { try await client.prepare() }
            scripted.clock.advance(seconds: 86_400)
            _ = try await client.send(ScriptedClient.request("POST"))
            let calls = await scripted.provider.calls
            #expect(calls[.attestKey] == 1 && calls[.generateKey] == 1, "\(code): one key, never a second of the same build")
            #expect(scripted.gateway.protected.last?.value(forHTTPHeaderField: AppAttestHeader.status.rawValue) == AppAttestStatus.failed.rawValue)
        }
    }

    @Test func aNonceMismatchNamesTheHashConvention() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerAttestations(.upstreamError(422, code: "nonce_mismatch"))
        await #expect {
            try await scripted.client(hashConvention: .raw).prepare()
        } throws: { error in
            guard let error = error as? AttestGuardClientError else { return false }
            return error.code == .hashConventionMismatch && error.message.contains("`raw`")
        }
    }

    @Test func aLostRegistrationAnswerIsSentOnceMoreWithTheSameObject() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerAttestations(.transportFailure)
        #expect(try await scripted.client().prepare() == .supported)
        let attestations = scripted.gateway.attestations
        #expect(attestations.count == 2 && attestations[0].httpBody == attestations[1].httpBody)
        #expect(await scripted.provider.calls[.attestKey] == 1)
    }

    @Test func aKeyAttestedButNotRegisteredIsReplacedOnTheNextLaunch() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerAttestations(.transportFailure, .transportFailure)
        await #expect(throws: AttestGuardClientError.self) { try await scripted.client().prepare() }
        // Apple attests a key once: the key is discarded, and the next launch attests a new one.
        #expect(try scripted.keyStore.load(account: "alice") == nil)
        #expect(try await scripted.client().prepare() == .supported)
        let calls = await scripted.provider.calls
        #expect(calls[.generateKey] == 2 && calls[.attestKey] == 2)
    }

    @Test func aRefusedRegistrationCostsNoKeyPerRequest() async throws {
        let scripted = ScriptedClient()
        scripted.gateway.answerAttestations(.refusal(503, code: "store_unavailable"))
        let client = scripted.client(retry: RetryPolicy(attestationCooldown: 300))
        for _ in 0..<3 { _ = try await client.send(ScriptedClient.request("POST")) }
        #expect(scripted.gateway.protected.count == 3)
        #expect(scripted.gateway.protected.allSatisfy { $0.value(forHTTPHeaderField: AppAttestHeader.status.rawValue) == AppAttestStatus.failed.rawValue })
        #expect(await scripted.provider.calls[.attestKey] == 1)
        scripted.clock.advance(seconds: 301)
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.protected.last?.value(forHTTPHeaderField: AppAttestHeader.assertion.rawValue) != nil)
        #expect(await scripted.provider.calls[.attestKey] == 2)
    }

    @Test func twoClientsOfOneUserAttestOneKey() async throws {
        let scripted = ScriptedClient()
        let first = scripted.client()
        let second = scripted.client()
        async let a = first.prepare()
        async let b = second.prepare()
        #expect(try await [a, b] == [.supported, .supported])
        let calls = await scripted.provider.calls
        #expect(calls[.generateKey] == 1 && calls[.attestKey] == 1)
    }

    @Test(arguments: AttestationHashConvention.allCases)
    func theChallengeIsHashedByTheConvention(convention: AttestationHashConvention) async throws {
        let scripted = ScriptedClient()
        try await scripted.client(hashConvention: convention).prepare()
        let challenge = try #require(scripted.gateway.challenges.first.flatMap { Base64Text.decodeURL($0) })
        let expected = convention == .sha256 ? Data(SHA256.hash(data: challenge)) : challenge
        #expect(await scripted.provider.attestedClientDataHashes == [expected])
    }

    @Test func anUnsupportedDeviceNeverGeneratesAKey() async throws {
        let scripted = ScriptedClient(supported: false)
        #expect(try await scripted.client().prepare() == .unsupported)
        _ = try await scripted.client().send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.protected.first?.value(forHTTPHeaderField: AppAttestHeader.status.rawValue) == "unsupported")
        #expect(await scripted.provider.calls[.generateKey] == nil)
    }

    @Test func eachAttemptReportsItsOutcomeAndAFailedReportChangesNothing() async throws {
        let scripted = ScriptedClient()
        await scripted.provider.failNext(.attestKey, with: .serverUnavailable, times: 4)
        let client = scripted.client(retry: RetryPolicy(attempts: 4, attestationCooldown: 300))
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.outcomes == [AttestationOutcomeReport(outcome: .failed, errorCode: DeviceCheckErrorCode.serverUnavailable)])
        scripted.clock.advance(seconds: 301)
        _ = try await client.send(ScriptedClient.request("POST"))
        #expect(scripted.gateway.outcomes.last == AttestationOutcomeReport(outcome: .attested))
        #expect(scripted.gateway.outcomes.count == 2)

        // A device without App Attest reports once; a report the gateway refuses never fails the app's request.
        let unsupported = ScriptedClient(supported: false)
        unsupported.gateway.failOutcomeReports()
        #expect(try await unsupported.client().prepare() == .unsupported)
        #expect(unsupported.gateway.outcomes == [AttestationOutcomeReport(outcome: .unsupported)])
        let refused = ScriptedClient()
        refused.gateway.failOutcomeReports()
        #expect(try await refused.client().prepare() == .supported)
        #expect(refused.gateway.outcomes == [AttestationOutcomeReport(outcome: .attested)])
        #expect(try refused.keyStore.load(account: "alice")?.registered == true)
    }

    @Test func retryWaitsDoubleUpToTheMaximum() {
        let policy = RetryPolicy(attempts: 10, initialDelay: 1, maximumDelay: 16)
        #expect((1...7).map(policy.delay(afterAttempt:)) == [1, 2, 4, 8, 16, 16, 16])
    }
}
