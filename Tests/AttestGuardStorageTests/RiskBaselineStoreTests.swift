import AttestTestSupport
import AttestVocabulary
import Foundation
@testable import AttestGuardStore
import Testing

@Suite("Risk-metric baselines in the store")
struct RiskBaselineStoreTests {
    /// The 200 active keys' metrics: the percentiles fall on different values.
    static let metrics: [Int] = Array(repeating: 1, count: 110) + Array(repeating: 2, count: 50) + Array(repeating: 3, count: 20)
        + Array(repeating: 4, count: 12) + Array(repeating: 6, count: 5) + Array(repeating: 12, count: 2) + [20]

    /// Nearest rank, computed here independently of the store: the value at 1-based rank ⌈p × N⌉ of the sorted values.
    static func nearestRank(_ percent: Double, _ values: [Int]) -> Int {
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(rank, 1) - 1]
    }

    /// Registers a key of `appId` for `user` on `device` whose receipt carries `metric`.
    @discardableResult
    static func register(
        _ store: any RiskStore, appId: String = StoreFixtures.appId, user: String, device: String, metric: Int?, environment: AppAttestEnvironment = .development
    ) async throws -> KeyRecord {
        var key = StoreFixtures.key(userId: user, deviceId: device)
        key.appId = appId
        key.environment = environment
        let challenge = StoreFixtures.challenge(purpose: .attestation, appId: appId, userId: user)
        _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
        var receipt = StoreFixtures.receipt(for: key)
        receipt.riskMetric = metric
        let outcome = try await store.registerKey(KeyRegistration(claim: StoreFixtures.claim(challenge, key: key, appId: appId), key: key, receipt: receipt))
        guard case .registered(let registered, _) = outcome else { throw StoreFixtures.RegistrationFailed(outcome: outcome) }
        return registered
    }

    /// The 200 active keys, plus keys that must not count: superseded and revoked keys with high metrics, keys without
    /// a metric, and another app's keys.
    static func seed(_ store: any RiskStore) async throws {
        for (index, metric) in metrics.enumerated() {
            if index < 5 {
                // Superseded by the key registered next for the same user and device.
                try await register(store, user: "u\(index)", device: "d\(index)", metric: 40)
            }
            try await register(store, user: "u\(index)", device: "d\(index)", metric: metric)
        }
        for index in 0..<5 {
            let revoked = try await register(store, user: "r\(index)", device: "rd\(index)", metric: 30)
            _ = try await store.revokeKey(appId: revoked.appId, keyId: revoked.keyId, at: StoreFixtures.now)
        }
        for index in 0..<3 { try await register(store, user: "n\(index)", device: "nd\(index)", metric: nil) }
        for index in 0..<4 { try await register(store, appId: StoreFixtures.otherAppId, user: "o\(index)", device: "od\(index)", metric: 25) }
    }

    @Test("an app with production keys has a production baseline: its development keys (test devices) do not count", arguments: StoreBackend.available)
    func oneEnvironment(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let mixed = "ABCDE12345.com.example.mixed"
            for index in 0..<3 { try await Self.register(store, appId: mixed, user: "p\(index)", device: "pd\(index)", metric: 2, environment: .production) }
            for index in 0..<2 { try await Self.register(store, appId: mixed, user: "t\(index)", device: "td\(index)", metric: 30) }
            guard case .computed(let baseline) = try await store.computeRiskBaseline(appId: mixed, day: "2026-11-22", at: StoreFixtures.now, by: "w") else {
                Issue.record("computed")
                return
            }
            #expect(baseline.keyCount == 3 && baseline.p99 == 2 && baseline.histogram == [2: 3])
        }
    }

    @Test("a baseline covers the app's active keys with a metric and matches independently computed percentiles", arguments: StoreBackend.available)
    func distribution(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await Self.seed(store)
            let outcome = try await store.computeRiskBaseline(appId: StoreFixtures.appId, day: "2026-11-22", at: StoreFixtures.now, by: "worker-a")
            guard case .computed(let baseline) = outcome else {
                Issue.record("expected a computed baseline, got \(outcome)")
                return
            }
            #expect(baseline.keyCount == 200)
            #expect(baseline.p50 == Self.nearestRank(50, Self.metrics))
            #expect(baseline.p90 == Self.nearestRank(90, Self.metrics))
            #expect(baseline.p99 == Self.nearestRank(99, Self.metrics))
            #expect([baseline.p50, baseline.p90, baseline.p99] == [1, 3, 12])
            #expect(baseline.shareAtLeast4 == 20.0 / 200)
            #expect(baseline.shareAtLeast10 == 3.0 / 200)
            #expect(baseline.histogram == [1: 110, 2: 50, 3: 20, 4: 12, 6: 5, 12: 2, 20: 1])
            #expect(baseline.day == "2026-11-22")
            #expect(baseline.computedBy == "worker-a")
            #expect(baseline.computedAt == StoreFixtures.now)
            #expect(try await store.latestRiskBaselines() == [baseline])
            #expect(try await store.riskBaselineHistory(appId: StoreFixtures.appId, limit: 7) == [baseline])

            // A key's percentile is the share of keys at or below its metric.
            #expect(baseline.percentile(of: 1) == 55)
            #expect(baseline.percentile(of: 12) == 99.5)
            #expect(baseline.percentile(of: 11) == 98.5, "197 of 200 keys: below 99, as 11 is below the p99")
            #expect(baseline.percentile(of: 0) == 0)
            #expect(baseline.percentile(of: 50) == 100)
        }
    }

    @Test("a day's baseline is computed once however many compute it at once; each day adds a history row", arguments: StoreBackend.available)
    func oncePerDay(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            for index in 0..<10 { try await Self.register(store, user: "u\(index)", device: "d\(index)", metric: index) }
            let outcomes = try await withThrowingTaskGroup(of: RiskBaselineOutcome.self) { group in
                for worker in ["worker-a", "worker-b", "worker-c"] {
                    group.addTask { try await store.computeRiskBaseline(appId: StoreFixtures.appId, day: "2026-11-22", at: StoreFixtures.now, by: worker) }
                }
                return try await group.reduce(into: [RiskBaselineOutcome]()) { $0.append($1) }
            }
            let computed = outcomes.compactMap { outcome -> RiskMetricBaseline? in
                if case .computed(let baseline) = outcome { return baseline }
                return nil
            }
            #expect(computed.count == 1)
            #expect(outcomes.filter { $0 == .alreadyComputed }.count == 2)
            #expect(computed.first?.keyCount == 10)
            #expect(computed.first?.p50 == 4)

            // The next day: a new row beside the first; an app without keys gets an empty baseline.
            try await Self.register(store, user: "late", device: "late", metric: 9)
            let nextDay = StoreFixtures.now.addingTimeInterval(86_400)
            guard case .computed(let second) = try await store.computeRiskBaseline(appId: StoreFixtures.appId, day: "2026-11-23", at: nextDay, by: "worker-b") else {
                Issue.record("the next day is computed")
                return
            }
            #expect(second.keyCount == 11)
            guard case .computed(let empty) = try await store.computeRiskBaseline(appId: StoreFixtures.otherAppId, day: "2026-11-22", at: StoreFixtures.now, by: "worker-a") else {
                Issue.record("another app's day is its own")
                return
            }
            #expect(empty.keyCount == 0 && empty.p50 == nil && empty.p99 == nil && empty.histogram.isEmpty && empty.shareAtLeast4 == 0)
            #expect(empty.percentile(of: 3) == nil)
            let history = try await store.riskBaselineHistory(appId: StoreFixtures.appId, limit: 7)
            #expect(history.map(\.day) == ["2026-11-23", "2026-11-22"])
            #expect(try await store.riskBaselineHistory(appId: StoreFixtures.appId, limit: 1).map(\.day) == ["2026-11-23"])
            #expect(try await store.latestRiskBaselines().map { "\($0.appId) \($0.day)" }
                == ["\(StoreFixtures.appId) 2026-11-23", "\(StoreFixtures.otherAppId) 2026-11-22"])
        }
    }

    @Test("nearest rank and a key's percentile from a histogram")
    func arithmetic() {
        let histogram = Dictionary(Self.metrics.map { ($0, 1) }, uniquingKeysWith: +)
        for percent in [50, 90, 99] {
            #expect(RiskMetricBaseline.nearestRank(percent, of: histogram) == Self.nearestRank(Double(percent), Self.metrics))
        }
        #expect(RiskMetricBaseline.nearestRank(50, of: [:]) == nil)
        #expect(RiskMetricBaseline.nearestRank(99, of: [7: 1]) == 7)
        let baseline = RiskMetricBaseline(appId: "a", day: "2026-11-22", computedAt: StoreFixtures.now, computedBy: "t", histogram: histogram)
        #expect(RiskMetricBaseline.histogram(json: baseline.histogramJSON) == histogram)
        #expect(baseline.histogramJSON.hasPrefix(#"{"1":110,"#))
    }
}
