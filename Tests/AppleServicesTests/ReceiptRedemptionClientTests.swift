import AppleReceipts
import AppleServices
import FakeApple
import AttestCore
import AttestTestSupport
import DeviceSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

struct ReceiptRedemptionClientTests {
    typealias Harness = FakeAppleHarness

    @Test func testRedeemsAVerifiableReceiptWithTheScenarioMetric() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-1")
        let scenario = FakeAppleScenario(riskMetricOverrides: [attestation.token: 7])
        try await Harness.withFake(Harness.configuration(credentials: credentials, scenario: scenario)) { server, baseURL in
            let outcome = await Harness.redemptionClient(credentials, baseURL: baseURL).redeem(attestation.receipt, environment: .production)
            guard case .redeemed(let bytes) = outcome else {
                Issue.record("expected a receipt, got \(outcome)")
                return
            }
            let receipt = try Receipt(payload: ReceiptEnvelope(bytes).content)
            #expect(receipt.type == .receipt)
            #expect(receipt.token == attestation.token)
            #expect(receipt.riskMetric == 7)
            #expect(receipt.riskMetric == scenario.riskMetric(forToken: attestation.token))
            #expect(receipt.notBefore == Harness.now.addingTimeInterval(86_400))
            let verdict = await ReceiptVerifier(trustRoots: Harness.pki.receiptTrustRoots)
                .verify(bytes, expecting: ReceiptExpectation(appId: Harness.app.appId, type: .receipt), at: Harness.now)
            #expect(verdict.receipt != nil)
            #expect(server.state.redemptionRequests(forToken: attestation.token) == 1)
            #expect(server.state.successfulRedemptions(forToken: attestation.token) == 1)
        }
    }

    @Test func testNotModifiedBeforeNotBefore() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-304")
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let client = Harness.redemptionClient(credentials, baseURL: baseURL)
            guard case .redeemed(let refreshed) = await client.redeem(attestation.receipt, environment: .production) else {
                Issue.record("the first redemption failed")
                return
            }
            #expect(await client.redeem(refreshed, environment: .production) == .notModified)
            #expect(server.state.stats.notModified == 1)
            #expect(server.state.redemptionRequests(forToken: attestation.token) == 2)
            #expect(server.state.successfulRedemptions(forToken: attestation.token) == 1)
        }
    }

    @Test func testNoDataToken() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-404")
        let scenario = FakeAppleScenario(noDataTokens: [attestation.token])
        try await Harness.withFake(Harness.configuration(credentials: credentials, scenario: scenario)) { server, baseURL in
            #expect(await Harness.redemptionClient(credentials, baseURL: baseURL).redeem(attestation.receipt, environment: .production) == .noData)
            #expect(server.state.stats.noData == 1)
        }
    }

    @Test func testIncorrectEnvironment() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-env", environment: .development)
        try await Harness.withFake(Harness.configuration(credentials: credentials, environment: .production)) { server, baseURL in
            let outcome = await Harness.redemptionClient(credentials, baseURL: baseURL).redeem(attestation.receipt, environment: .development)
            guard case .incorrectEnvironment(let detail) = outcome else {
                Issue.record("expected incorrectEnvironment, got \(outcome)")
                return
            }
            #expect(detail.lowercased().contains("incorrect environment"))
            #expect(server.state.stats.incorrectEnvironment == 1)
        }
    }

    @Test func testGarbageIsABadRequest() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let outcome = await Harness.redemptionClient(credentials, baseURL: baseURL).redeem([1, 2, 3, 4], environment: .production)
            guard case .badRequest(let detail) = outcome else {
                Issue.record("expected badRequest, got \(outcome)")
                return
            }
            #expect(detail.contains("bad payload"))
            #expect(server.state.stats.badRequests == 1)
        }
    }

    @Test func testTokenFromAnotherKeyIsUnauthorized() async throws {
        let credentials = try Harness.credentials()
        let stranger = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-401")
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let outcome = await Harness.redemptionClient(stranger, baseURL: baseURL).redeem(attestation.receipt, environment: .production)
            guard case .unauthorized = outcome else {
                Issue.record("expected unauthorized, got \(outcome)")
                return
            }
            #expect(server.state.stats.unauthorized == 1)
            #expect(server.state.redemptionRequests(forToken: attestation.token) == 0)
        }
    }

    @Test func testExpiredProviderTokenIsUnauthorized() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-401-old")
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { _, baseURL in
            let tokens = ProviderTokenSource(credentials: credentials, now: { Harness.now.addingTimeInterval(-3700) })
            let client = ReceiptRedemptionClient(tokens: tokens, configuration: .init(baseURL: baseURL))
            guard case .unauthorized(let detail) = await client.redeem(attestation.receipt, environment: .production) else {
                Issue.record("an hour-old token was accepted")
                return
            }
            #expect(detail.contains("expired"))
        }
    }

    @Test func testThrottledWithRetryAfter() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-429")
        let faults = FakeAppleFaults(throttleRate: 1, retryAfterSeconds: 7)
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: faults)) { server, baseURL in
            let outcome = await Harness.redemptionClient(credentials, baseURL: baseURL).redeem(attestation.receipt, environment: .production)
            #expect(outcome == .throttled(retryAfter: .seconds(7)))
            #expect(server.state.injectedFailures(.throttled) == 1)
        }
    }

    @Test func testServerError() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-5xx")
        let faults = FakeAppleFaults(serverErrorRate: 1)
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: faults)) { server, baseURL in
            let client = Harness.redemptionClient(credentials, baseURL: baseURL)
            var statuses: Set<Int> = []
            for _ in 0..<8 {
                guard case .serverError(let status) = await client.redeem(attestation.receipt, environment: .production) else {
                    Issue.record("expected a server error")
                    return
                }
                statuses.insert(status)
            }
            #expect(statuses.isSubset(of: [500, 503]))
            #expect(server.state.injectedFailures(.serverError) == 8)
            #expect(server.state.successfulRedemptions(forToken: attestation.token) == 0)
        }
    }

    @Test func testSlowAnswerTimesOut() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-slow")
        // The answer waits ten minutes, so only the client's timeout ends it (the fake's shutdown waits its 2 s grace
        // period for it, then cancels it).
        let faults = FakeAppleFaults(slowRate: 1, slowDelay: .seconds(600))
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: faults)) { server, baseURL in
            // A timeout long enough for a busy two-core debug run to reach the fake's fault injector.
            let client = Harness.redemptionClient(credentials, baseURL: baseURL, timeout: .seconds(4))
            let started = ContinuousClock.now
            #expect(await client.redeem(attestation.receipt, environment: .production) == .timedOut)
            // Well before the fake would answer (600 s), even when the suite holds the client back for minutes (two
            // busy cores have held a 300 ms deadline's answer back for over a minute).
            #expect(ContinuousClock.now - started < .seconds(300))
            #expect(server.state.injectedFailures(.slow) == 1)
        }
    }

    @Test func testDroppedConnection() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-drop")
        let faults = FakeAppleFaults(dropRate: 1)
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: faults)) { server, baseURL in
            let outcome = await Harness.redemptionClient(credentials, baseURL: baseURL).redeem(attestation.receipt, environment: .production)
            guard case .connectionFailed = outcome else {
                Issue.record("expected connectionFailed, got \(outcome)")
                return
            }
            #expect(server.state.injectedFailures(.dropped) == 1)
        }
    }

    @Test func testNothingListeningIsAConnectionFailure() async throws {
        let client = Harness.redemptionClient(try Harness.credentials(), baseURL: "http://127.0.0.1:1", timeout: .milliseconds(500))
        // async-http-client retries a refused connection until the deadline and then reports the connect error;
        // on a loaded machine the exchange's own deadline can fire first. Both are transient failures that the
        // scheduler retries alike; anything else (an answer, a crash) is wrong.
        switch await client.redeem([1, 2, 3], environment: .production) {
        case .connectionFailed, .timedOut: break
        case let other: Issue.record("expected connectionFailed (or timedOut under load), got \(other)")
        }
    }

    @Test func testTamperedReceiptFailsVerification() async throws {
        let credentials = try Harness.credentials()
        let attestation = try Harness.attestation(device: "redeem-tamper")
        let scenario = FakeAppleScenario(tamperedTokens: [attestation.token])
        try await Harness.withFake(Harness.configuration(credentials: credentials, scenario: scenario)) { server, baseURL in
            guard case .redeemed(let bytes) = await Harness.redemptionClient(credentials, baseURL: baseURL)
                .redeem(attestation.receipt, environment: .production)
            else {
                Issue.record("the tampered receipt was not returned")
                return
            }
            #expect((try? Receipt(payload: ReceiptEnvelope(bytes).content)) != nil)
            let verdict = await ReceiptVerifier(trustRoots: Harness.pki.receiptTrustRoots)
                .verify(bytes, expecting: ReceiptExpectation(appId: Harness.app.appId), at: Harness.now)
            #expect(verdict.error?.code == .signatureInvalid)
            #expect(server.state.injectedFailures(.tampered) == 1)
        }
    }

    @Test func testStatsEndpointCounts() async throws {
        let credentials = try Harness.credentials()
        let first = try Harness.attestation(device: "stats-1")
        let second = try Harness.attestation(device: "stats-2")
        let scenario = FakeAppleScenario(noDataTokens: [second.token])
        try await Harness.withFake(Harness.configuration(credentials: credentials, scenario: scenario)) { _, baseURL in
            let client = Harness.redemptionClient(credentials, baseURL: baseURL)
            _ = await client.redeem(first.receipt, environment: .production)
            _ = await client.redeem(first.receipt, environment: .production)
            _ = await client.redeem(second.receipt, environment: .production)
            let url = try #require(URL(string: baseURL + "/fake/stats"))
            let (body, response) = try await URLSession.shared.dataShieldedFromCancellation(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let stats = try JSONDecoder().decode(FakeAppleStats.self, from: body)
            #expect(stats.redemptionRequests == 3)
            #expect(stats.redeemed == 2)
            #expect(stats.noData == 1)
            #expect(stats.tokens[first.token] == FakeAppleStats.TokenStats(requests: 2, redeemed: 2))
            #expect(stats.tokens[second.token] == FakeAppleStats.TokenStats(requests: 1, redeemed: 0))
        }
    }
}

/// The fake's control route sets one key's risk metric while it runs, over the scenario's.
struct FakeAppleRiskMetricControlTests {
    typealias Harness = FakeAppleHarness

    static func post(_ baseURL: String, _ json: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: baseURL + "/fake/risk-metric")))
        request.httpMethod = "POST"
        request.httpBody = Data(json.utf8)
        let (data, response) = try await URLSession.shared.dataShieldedFromCancellation(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func testSetMetricWinsForThatKeyOnly() async throws {
        let credentials = try Harness.credentials()
        let farm = try Harness.attestation(device: "control-farm")
        let honest = try Harness.attestation(device: "control-honest")
        let farmKeyId = Data(SimulatedDevice(pki: Harness.pki, identifier: "control-farm").generateKey(0).keyId).base64EncodedString()
        let scenario = FakeAppleScenario(defaultRiskMetric: 2)
        try await Harness.withFake(Harness.configuration(credentials: credentials, scenario: scenario)) { server, baseURL in
            let set = try await Self.post(baseURL, #"{"keyId":"\#(farmKeyId)","riskMetric":14}"#)
            #expect(set.status == 200, "\(set.body)")
            #expect(set.body.contains(farm.token))
            #expect(server.state.riskMetric(forToken: farm.token) == 14)
            let client = Harness.redemptionClient(credentials, baseURL: baseURL)
            for (attestation, expected) in [(farm, 14), (honest, 2)] {
                guard case .redeemed(let bytes) = await client.redeem(attestation.receipt, environment: .production) else {
                    Issue.record("expected a receipt")
                    continue
                }
                #expect(try Receipt(payload: ReceiptEnvelope(bytes).content).riskMetric == expected)
            }
            for bad in [#"{"keyId":"short","riskMetric":3}"#, #"{"keyId":"\#(farmKeyId)","riskMetric":-1}"#, "not json"] {
                #expect(try await Self.post(baseURL, bad).status == 400, "\(bad)")
            }
        }
    }
}
