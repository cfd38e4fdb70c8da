import AppleReceipts
import AppleServices
import FakeApple
import AttestCore
import AttestGuardEngine
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing
import AttestVocabulary

@Suite("Receipt refresh batches against the fake Apple")
struct ReceiptBatchTests {
    /// The size the batch test runs at on every backend. What it proves is the fault handling (every kind injected,
    /// every key settled, extra redemptions bounded by the faults) and the batch split over leases and workers; more
    /// keys prove nothing more and cost the suite minutes (10,000 on PostgreSQL took half its CPU). The batch's
    /// scale is `Benchmarks/receipts.sh`'s: 100,000 receipts. Tokens are random, so how many requests meet a fault
    /// varies by run: with 500 keys, ~0.5% of runs drew no dropped connection at 1% and failed the check that every
    /// kind was injected; with 1,000, ~0.003%.
    static func fleetSize(_ backend: TestStoreBackend) -> Int { 1_000 }

    @Test("a batch under injected 429s, 5xx and dropped connections ends with every key's scenario metric", arguments: TestStoreBackend.available)
    func batchUnderFaults(backend: TestStoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let count = Self.fleetSize(backend)
            let fleet = try await ReceiptFleet.register(count: count, in: test.store)
            let scenario = FakeAppleScenario(seed: "batch", defaultRiskMetric: 2, farmFraction: 0.03, farmRiskMetric: 37)
            let faults = FakeAppleFaults(seed: "batch", throttleRate: 0.05, retryAfterSeconds: 2, serverErrorRate: 0.02, dropRate: 0.01)
            let clock = ManualClock(RefreshHarness.batchAt)
            try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: scenario, faults: faults) { fake, scheduler in
                let report = try await scheduler.runBatch()
                #expect(report.redeemed == count)
                #expect(report.gaveUp == 0 && report.failed == 0)
                #expect(report.retries > 0)

                let stats = fake.state.stats
                let injected = stats.injected(.throttled) + stats.injected(.serverError) + stats.injected(.dropped)
                #expect(stats.injected(.throttled) > 0 && stats.injected(.serverError) > 0 && stats.injected(.dropped) > 0)
                #expect(stats.redeemed == count)
                #expect(stats.redemptionRequests - count <= injected)

                let store = test.store
                let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
                    for slice in stride(from: 0, to: fleet.count, by: 500).map({ Array(fleet[$0..<min($0 + 500, fleet.count)]) }) {
                        group.addTask {
                            var wrong = 0
                            for member in slice {
                                let receipt = try await store.receipt(appId: SimulatorFixtures.app.appId, keyId: member.keyId)
                                let history = try await store.riskMetricHistory(appId: SimulatorFixtures.app.appId, keyId: member.keyId)
                                let expected = scenario.riskMetric(forToken: member.token)
                                if receipt?.riskMetric != expected || receipt?.receiptType != .receipt || history.map(\.riskMetric) != [expected] {
                                    wrong += 1
                                }
                            }
                            return wrong
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(mismatches == 0)
                #expect(try await store.receiptBacklog(at: clock.now(), retryingSince: RefreshHarness.batchAt).isEmpty)
            }
        }
    }

    @Test("a tampered receipt is rejected and the old one kept; the others are redeemed", arguments: TestStoreBackend.available)
    func tamperedReceiptIsRejected(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 6, in: test.store)
            let tampered = fleet[0]
            let scenario = FakeAppleScenario(tamperedTokens: [tampered.token])
            let clock = ManualClock(RefreshHarness.batchAt)
            try await RefreshHarness.withScheduler(
                store: test.store, clock: clock, scenario: scenario, settings: RefreshHarness.settings(maximumAttempts: 3)
            ) { _, scheduler in
                let report = try await scheduler.runBatch()
                #expect(report.redeemed == 5)
                #expect(report.gaveUp == 1)
                #expect(report.retries == 2)
                #expect(report.failures == ["receipt_signature_invalid": 1])
            }
            let kept = try #require(try await test.store.receipt(appId: SimulatorFixtures.app.appId, keyId: tampered.keyId))
            #expect(kept.receiptType == .attest)
            #expect(kept.lastOutcome == "receipt_signature_invalid")
            #expect(try await test.store.riskMetricHistory(appId: SimulatorFixtures.app.appId, keyId: tampered.keyId).isEmpty)
        }
    }

    @Test("404 keeps the receipt and marks the metric stale; the next redemption after not-before adds history", arguments: TestStoreBackend.available)
    func noDataAndLaterRedemption(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 2, in: test.store)
            let (fresh, silent) = (fleet[0], fleet[1])
            let app = SimulatorFixtures.app.appId
            let clock = ManualClock(RefreshHarness.batchAt)
            let scenario = FakeAppleScenario(defaultRiskMetric: 3, noDataTokens: [silent.token])
            try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: scenario) { fake, scheduler in
                let first = try await scheduler.runBatch()
                #expect(first.redeemed == 1 && first.noData == 1)
                let stale = try #require(try await test.store.receipt(appId: app, keyId: silent.keyId))
                #expect(stale.metricStale && stale.receiptType == .attest && stale.lastOutcome == "no_data")

                // The RECEIPT is next due no earlier than Apple's not-before (a day after its creation).
                let redeemed = try #require(try await test.store.receipt(appId: app, keyId: fresh.keyId))
                let due = try #require(redeemed.nextRefreshAt)
                #expect(due >= (redeemed.notBefore ?? .distantFuture))
                clock.set(due)
                let second = try await scheduler.runBatch()
                #expect(second.redeemed == 1 && second.notModified == 0, "\(second)")
                #expect(try await test.store.riskMetricHistory(appId: app, keyId: fresh.keyId).count == 2)
                #expect(fake.state.successfulRedemptions(forToken: fresh.token) == 2)
            }
        }
    }

    @Test("304 keeps the stored receipt and reschedules it just after its not-before", arguments: TestStoreBackend.available)
    func notModified(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let notBefore = RefreshHarness.batchAt.addingTimeInterval(3_600)
            let member = try #require(try await ReceiptFleet.register(count: 1, in: test.store, storedNotBefore: notBefore).first)
            let scheduler = ReceiptRefreshScheduler(
                store: test.store,
                redeemer: ScriptedRedeemer(answer: .notModified),
                verifier: ReceiptVerifier(trustRoots: SimulatorFixtures.pki.receiptTrustRoots),
                settings: RefreshHarness.settings(),
                clock: ManualClock(RefreshHarness.batchAt),
                logger: RefreshHarness.quietLogger
            )
            let before = try await test.store.receipt(appId: SimulatorFixtures.app.appId, keyId: member.keyId)
            let report = try await scheduler.runBatch()
            #expect(report.notModified == 1 && report.settled == 1)
            let after = try #require(try await test.store.receipt(appId: SimulatorFixtures.app.appId, keyId: member.keyId))
            #expect(after.receipt == before?.receipt)
            #expect(after.nextRefreshAt == notBefore.addingTimeInterval(1))
            #expect(after.lastOutcome == "not_modified" && after.attempts == 0)
        }
    }

    @Test("revoked keys are not refreshed", arguments: TestStoreBackend.available)
    func revokedKeysAreSkipped(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 3, in: test.store)
            _ = try await test.store.revokeKey(appId: SimulatorFixtures.app.appId, keyId: fleet[0].keyId, at: RefreshHarness.batchAt)
            try await RefreshHarness.withScheduler(store: test.store, clock: ManualClock(RefreshHarness.batchAt)) { fake, scheduler in
                let report = try await scheduler.runBatch()
                #expect(report.redeemed == 2)
                #expect(fake.state.redemptionRequests(forToken: fleet[0].token) == 0)
            }
        }
    }
}

/// A redeemer that always gives the same answer.
struct ScriptedRedeemer: ReceiptRedeeming {
    let answer: ReceiptRedemptionOutcome

    func redeem(_ receipt: [UInt8], environment: AppAttestEnvironment) async -> ReceiptRedemptionOutcome { answer }
}
