import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

/// `attestguard rules backtest` over a decision log of 11,000 entries in the configured store.
@Suite("attestguard rules backtest")
struct BacktestCommandTests {
    /// Three of the replay's 5,000-entry pages, the last one partial: more entries prove nothing more.
    static let count = 11_000

    /// `count` snapshots with risk metrics 0-29 as the shipped rules logged them: key-farm (>= 10) reviewed, else
    /// allowed.
    static func entries(now: Date, count: Int = count) -> [DecisionLogEntry] {
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

    /// A fresh store holding `entries` (PostgreSQL when the tests have one, else SQLite) and the environment that
    /// configures it.
    static func environment(logging entries: [DecisionLogEntry]) async throws -> [String: String] {
        if TestPostgres.isEnabled {
            let url = try await TestPostgres.freshSchemaURL(prefix: "b")
            let store = try await TestStore.postgres(url: url, poolSize: 4)
            try await store.store.appendDecisions(entries)
            await store.close()
            return ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        }
        let sqlitePath = FileManager.default.temporaryDirectory.appendingPathComponent("backtest-\(UUID().uuidString).sqlite").path
        let store = try await TestStore.sqlite(path: sqlitePath)
        try await store.store.appendDecisions(entries)
        await store.close()
        return ServerProcess.environment(databaseURL: nil, sqlitePath: sqlitePath)
    }

    @Test("a raised key-farm threshold moves the metrics 10-19 from review to allow; the report counts every move")
    func raisedThreshold() async throws {
        let environment = try await Self.environment(logging: Self.entries(now: Date()))
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
        #expect(
            report["recomputedSignals"] as? [String: Int] == ["distinct.users.device.24h": Self.count, "distinct.devices.user.7d": Self.count],
            "the shipped rules' distinct counts, which these snapshots lack, come from the logged subjects"
        )

        let text = try await CommandLineRunner.run(["rules", "backtest", "--rules", candidate, "--since", "7d"], environment: environment)
        #expect(text.standardOutput.contains("logged \\ candidate"))
        #expect(text.standardOutput.contains("key-farm: \(metrics.filter { $0 >= 10 }.count) -> \(metrics.filter { $0 >= 20 }.count)"), "\(text.standardOutput)")
    }

    @Test("verdicts decided after the backtest started are left out")
    func laterVerdictsLeftOut() async throws {
        // Decided a day from now: as if the server had written them while the backtest read.
        let now = Date()
        let later = Self.entries(now: now.addingTimeInterval(86_400), count: 30)
        let environment = try await Self.environment(logging: Self.entries(now: now, count: 40) + later)
        let result = try await CommandLineRunner.run(["rules", "backtest", "--rules", RulesCommandTests.shipped, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.json["decisions"] as? Int == 40)
    }

    @Test("a SQLite store of another schema is refused with its code, and left unmigrated", arguments: TestSQLite.SchemaShift.allCases)
    func otherSchemaRefused(shift: TestSQLite.SchemaShift) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("backtest-\(UUID().uuidString).sqlite").path
        let store = try await TestStore.sqlite(path: path)
        try await store.store.appendDecisions(Self.entries(now: Date(), count: 10))
        await store.close()
        try await TestSQLite.shiftSchema(at: path, shift)
        let code = shift == .older ? "schema_outdated" : "schema_too_new"
        let environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        for _ in 0..<2 {
            let result = try await CommandLineRunner.run(["rules", "backtest", "--rules", RulesCommandTests.shipped], environment: environment)
            #expect(result.status == 3, "\(result.standardOutput)")
            #expect(result.standardError.contains(code), "\(result.standardError)")
            #expect(result.standardError.contains(shift == .older ? "run `attestguard migrate`" : "this binary is older than the store"))
        }
    }

    @Test("a missing SQLite file is refused, not created")
    func missingStoreRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backtest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("attestguard.sqlite").path
        let environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        let result = try await CommandLineRunner.run(["rules", "backtest", "--rules", RulesCommandTests.shipped], environment: environment)
        #expect(result.status == 3)
        #expect(result.standardError.contains("store_not_found"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
