import AttestGuardStore
import AttestTestSupport
import Foundation
import Testing

/// `attestguard receipts baseline` over the configured store (PostgreSQL when the suite has one, else SQLite).
@Suite("attestguard receipts baseline")
struct BaselineCommandTests {
    static let appId = SimulatorFixtures.app.appId

    @Test("prints the latest baseline, its history and the suggested thresholds; 2 for an app that is not configured")
    func baseline() async throws {
        let environment = try await HistoryCommandTests.store { store in
            let members = try await ReceiptFleet.register(count: 20, in: store)
            for (index, member) in members.enumerated() {
                let metric = index < 16 ? 1 : (index < 19 ? 2 : 6)
                let created = SimulatorFixtures.now.addingTimeInterval(3_600)
                let receipt = ReceiptRecord(
                    appId: Self.appId, keyId: member.keyId, receiptType: .receipt, receipt: Data("r\(index)".utf8), createdAt: created,
                    notBefore: nil, expiresAt: nil, riskMetric: metric, storedAt: created, nextRefreshAt: created.addingTimeInterval(86_400)
                )
                _ = try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "test", observedAt: created))
            }
            for day in ["2026-11-21", "2026-11-22"] {
                _ = try await store.computeRiskBaseline(appId: Self.appId, day: day, at: SimulatorFixtures.now, by: "nightly")
            }
        }
        let text = try await CommandLineRunner.run(["receipts", "baseline", "--app", Self.appId], environment: environment)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput == """
            \(Self.appId): baseline of 2026-11-22, 20 active keys with a risk metric
              p50 1  p90 2  p99 6  share >= 4: 5.0 %  share >= 10: 0.0 %
              suggested: review when receipt.risk_metric > 6 (the p99); deny when >= 12 (max of 10 and twice the p99)
              few keys: the percentiles are rough; keep the fixed thresholds until there are 100 or more
              history (newest first):
                day         keys   p50  p90  p99  >=4      >=10
                2026-11-22 20     1    2    6    5.0 %    0.0 %
                2026-11-21 20     1    2    6    5.0 %    0.0 %

            """, "\(text.standardOutput)")

        let json = try await CommandLineRunner.run(["receipts", "baseline", "--app", Self.appId, "--json", "--days", "1"], environment: environment)
        #expect(json.status == 0, "\(json.standardError)")
        let app = try #require((json.json["apps"] as? [[String: Any]])?.first)
        #expect(app["appId"] as? String == Self.appId)
        let latest = try #require(app["latest"] as? [String: Any])
        #expect(latest["p50"] as? Int == 1 && latest["p90"] as? Int == 2 && latest["p99"] as? Int == 6)
        #expect(latest["keys"] as? Int == 20)
        #expect(latest["histogram"] as? [String: Int] == ["1": 16, "2": 3, "6": 1])
        #expect(app["suggested"] as? [String: Int] == ["reviewAbove": 6, "denyAtOrAbove": 12])
        #expect((app["history"] as? [[String: Any]])?.count == 1)

        let unknown = try await CommandLineRunner.run(["receipts", "baseline", "--app", "ABCDE12345.com.example.nope"], environment: environment)
        #expect(unknown.status == 2, "\(unknown.standardError)")
    }
}
