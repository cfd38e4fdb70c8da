import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import FakeApple
import Foundation
import Testing

/// The nightly batch ends with the day's risk-metric baselines, over the metrics it just redeemed.
@Suite("Receipt batch: risk-metric baselines")
struct RiskBaselineBatchTests {
    @Test("a batch computes each app's baseline once a day from the redeemed metrics", arguments: TestStoreBackend.available)
    func batchComputesBaselines(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            _ = try await ReceiptFleet.register(count: 12, in: test.store)
            let app = SimulatorFixtures.app.appId
            let clock = ManualClock(RefreshHarness.batchAt)
            try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: FakeAppleScenario(defaultRiskMetric: 2)) { _, scheduler in
                var scheduler = scheduler
                scheduler.baselines = RiskBaselineJob(
                    store: test.store, appIds: [app, "ABCDE12345.com.example.other"], clock: clock, owner: "test-worker", logger: RefreshHarness.quietLogger
                )
                let first = try await scheduler.runBatch()
                #expect(first.redeemed == 12)
                #expect(first.baselinesComputed == 2)
                let again = try await scheduler.runBatch()
                #expect(again.baselinesComputed == 0, "one baseline per app and day")
            }
            let latest = try await test.store.latestRiskBaselines()
            #expect(latest.map(\.appId) == ["ABCDE12345.com.example.other", app].sorted())
            let baseline = try #require(latest.first { $0.appId == app })
            #expect(baseline.keyCount == 12 && baseline.p50 == 2 && baseline.p99 == 2 && baseline.histogram == [2: 12])
            #expect(baseline.day == RiskBaselineJob.day(of: RefreshHarness.batchAt))
            #expect(baseline.computedBy == "test-worker")
        }
    }

    @Test("the continuous loop's check computes once per UTC day and again on the next", arguments: TestStoreBackend.available)
    func oncePerDayInTheLoop(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let app = SimulatorFixtures.app.appId
            // 23:00 UTC: the next day begins an hour later.
            let clock = ManualClock(Date(timeIntervalSince1970: 1_795_474_800))
            let job = RiskBaselineJob(store: test.store, appIds: [app], clock: clock, owner: "loop", logger: RefreshHarness.quietLogger)
            #expect(try await job.runIfDue().map(\.day) == ["2026-11-23"])
            clock.advance(by: 1_800)
            #expect(try await job.runIfDue().isEmpty)
            // Another process's job, started later the same day, finds the day taken.
            let other = RiskBaselineJob(store: test.store, appIds: [app], clock: clock, owner: "other", logger: RefreshHarness.quietLogger)
            #expect(try await other.runIfDue().isEmpty)
            clock.advance(by: 1_800)
            #expect(try await job.runIfDue().map(\.day) == ["2026-11-24"])
            #expect(try await test.store.riskBaselineHistory(appId: app, limit: 10).map(\.computedBy) == ["loop", "loop"])
        }
    }

    @Test("the continuous refresher computes the day's baselines after its first pass", arguments: TestStoreBackend.available)
    func continuousLoop(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            _ = try await ReceiptFleet.register(count: 3, in: test.store)
            let app = SimulatorFixtures.app.appId
            let clock = ManualClock(RefreshHarness.batchAt)
            try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: FakeAppleScenario(defaultRiskMetric: 4)) { _, scheduler in
                var scheduler = scheduler
                scheduler.baselines = RiskBaselineJob(store: test.store, appIds: [app], clock: clock, owner: "serve", logger: RefreshHarness.quietLogger)
                let configured = scheduler
                let loop = Task { try await configured.runContinuously() }
                // The loop then sleeps on the manual clock, which stays still: wait for its first pass's baseline.
                var latest: [RiskMetricBaseline] = []
                for _ in 0..<1_200 where latest.isEmpty {
                    try await Task.sleep(for: .milliseconds(50))
                    latest = try await test.store.latestRiskBaselines()
                }
                loop.cancel()
                _ = await loop.result
                #expect(latest.map(\.keyCount) == [3])
                #expect(latest.first?.histogram == [4: 3])
                #expect(latest.first?.computedBy == "serve")
            }
        }
    }
}
