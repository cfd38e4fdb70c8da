import AttestTestSupport
import AttestVocabulary
import Foundation
@testable import AttestGuardStore
import Testing

/// The console's reads on both stores: the shadow verdict kept beside the live one, a range's verdicts newest first,
/// of one app, at most the limit, and the active keys' risk metrics.
@Suite("Console reads in the store")
struct ConsoleStoreTests {
    static func entry(
        _ offset: TimeInterval, app: String = "A.app", decision: Decision = .allow, keyId: String? = nil, shadow: ShadowVerdict? = nil
    ) -> DecisionLogEntry {
        DecisionLogEntry(
            appId: app, decidedAt: StoreFixtures.now.addingTimeInterval(offset), endpoint: .score, keyId: keyId, userHash: nil, ipHash: nil,
            decision: decision, ruleDecision: decision, score: 10, ruleSetVersion: "sha256:live", fired: "a", signals: "{}", shadow: shadow
        )
    }

    @Test("a shadow verdict is kept beside the live one, and none where there was none", arguments: StoreBackend.available)
    func shadowColumns(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let shadow = ShadowVerdict(decision: .deny, ruleSetVersion: "sha256:shadow", fired: "a,b")
            try await test.store.appendDecisions([Self.entry(0, shadow: shadow), Self.entry(1)])
            let read = try await test.store.decisions(since: StoreFixtures.now, after: nil, limit: 10)
            #expect(read.map(\.shadow) == [shadow, nil])
            let sample = try await test.store.verdictSample(
                appId: "A.app", from: StoreFixtures.now, to: StoreFixtures.now.addingTimeInterval(10), limit: 10
            )
            #expect(sample.map(\.shadow) == [nil, shadow], "newest first")
        }
    }

    @Test("a range's verdicts come newest first, of one app, within the range, at most the limit", arguments: StoreBackend.available)
    func verdictSample(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            var entries: [DecisionLogEntry] = []
            for index in 0..<20 {
                let decision: Decision = index % 4 == 0 ? .deny : .allow
                let keyId: String? = index % 2 == 0 ? "k\(index)" : nil
                entries.append(Self.entry(Double(index), decision: decision, keyId: keyId))
            }
            entries.append(Self.entry(5, app: "B.app"))
            entries.append(Self.entry(-1))
            entries.append(Self.entry(20))
            try await test.store.appendDecisions(entries)
            let from = StoreFixtures.now
            let to = StoreFixtures.now.addingTimeInterval(20)
            let all = try await test.store.verdictSample(appId: "A.app", from: from, to: to, limit: 100)
            #expect(all.count == 20, "[from, to) of app A only")
            #expect(all.map(\.decidedAt) == all.map(\.decidedAt).sorted(by: >))
            #expect(all.filter(\.hasKey).count == 10 && all.filter { $0.decision == .deny }.count == 5)
            #expect(all.allSatisfy { $0.fired == "a" && $0.endpoint == .score && $0.shadow == nil })
            let newest = try await test.store.verdictSample(appId: "A.app", from: from, to: to, limit: 3)
            #expect(newest.map(\.decidedAt) == Array(all.prefix(3).map(\.decidedAt)))
            #expect(try await test.store.verdictSample(appId: "C.app", from: from, to: to, limit: 100).isEmpty)
        }
    }

    @Test("an app without keys has no risk metrics to count", arguments: StoreBackend.available)
    func riskMetricsWithoutKeys(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            #expect(try await test.store.riskMetricCounts(appId: "A.app", limit: 100).isEmpty)
        }
    }
}
