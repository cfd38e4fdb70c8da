import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStorage
import Testing

/// `attestguard rules backtest` over a decision log of 20,000 entries in the configured store.
@Suite("attestguard rules backtest")
struct BacktestCommandTests {
    static let count = 20_000

    /// Snapshots with risk metrics 0-29 as the shipped rules logged them: key-farm (>= 10) reviewed, else allowed.
    static func entries(now: Date) -> [DecisionLogEntry] {
        (0..<count).map { index in
            let metric = index % 30
            let farm = metric >= 10
            return DecisionLogEntry(
                appId: "ABCDE12345.com.example.attestguard", decidedAt: now.addingTimeInterval(-Double(index) * 10), endpoint: .score,
                keyId: nil, userHash: "h\(index % 500)", ipHash: nil, decision: farm ? .review : .allow, ruleDecision: farm ? .review : .allow,
                score: farm ? 60 : (metric >= 4 ? 20 : 0), ruleSetVersion: "sha256:old",
                fired: farm ? "key-farm" : (metric >= 4 ? "many-reinstalls" : ""),
                signals: #"{"key.status":"active","receipt.risk_metric":\#(metric),"receipt.stale":false}"#
            )
        }
    }

    @Test("a raised key-farm threshold moves the metrics 10-19 from review to allow; the report counts every move")
    func raisedThreshold() async throws {
        let backend: TestStoreBackend = TestPostgres.isEnabled ? .postgres : .sqlite
        var environment: [String: String]
        let sqlitePath = FileManager.default.temporaryDirectory.appendingPathComponent("backtest-\(UUID().uuidString).sqlite").path
        switch backend {
        case .postgres:
            let url = try await TestPostgres.freshSchemaURL(prefix: "b")
            let store = try await TestStore.postgres(url: url, poolSize: 4)
            try await store.store.appendDecisions(Self.entries(now: Date()))
            await store.close()
            environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        case .sqlite:
            let store = try await TestStore.sqlite(path: sqlitePath)
            try await store.store.appendDecisions(Self.entries(now: Date()))
            await store.close()
            environment = ServerProcess.environment(databaseURL: nil, sqlitePath: sqlitePath)
        }
        let candidate = try RulesCommandTests.brokenCopy { $0.replacingOccurrences(of: "when: receipt.risk_metric >= 10", with: "when: receipt.risk_metric >= 20") }
        let result = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "7d", "--json"], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let report = result.json
        let metrics = (0..<Self.count).map { $0 % 30 }
        #expect(report["decisions"] as? Int == Self.count)
        let matrix = try #require(report["matrix"] as? [String: [String: Int]])
        #expect(matrix["review"]?["allow"] == metrics.filter { (10..<20).contains($0) }.count)
        #expect(matrix["review"]?["review"] == metrics.filter { $0 >= 20 }.count)
        #expect(matrix["allow"]?["allow"] == metrics.filter { $0 < 10 }.count)
        #expect(report["changed"] as? Int == metrics.filter { (10..<20).contains($0) }.count)
        #expect((report["hitsAfter"] as? [String: Int])?["key-farm"] == metrics.filter { $0 >= 20 }.count)
        #expect((report["hitsBefore"] as? [String: Int])?["key-farm"] == metrics.filter { $0 >= 10 }.count)
        #expect(report["touchedByMissing"] as? Int == Self.count, "the shipped rules read signals these snapshots never had")

        let text = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "7d"], environment: environment)
        #expect(text.standardOutput.contains("logged \\ candidate"))
        #expect(text.standardOutput.contains("key-farm: \(metrics.filter { $0 >= 10 }.count) -> \(metrics.filter { $0 >= 20 }.count)"), "\(text.standardOutput)")
    }
}
