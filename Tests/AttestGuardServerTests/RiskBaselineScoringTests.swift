import AttestGuardEngine
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import AttestGuardStore
import AttestTestSupport
import Foundation
import Logging
import Testing

/// The baseline signals through the score route: the daily job stores the app's baseline, the server reads it into
/// memory as its reload does, and the shipped rule `above-app-baseline` reviews the keys above the app's p99.
@Suite("HTTP: verdicts against the app's risk-metric baseline")
struct RiskBaselineScoringTests {
    /// An app of this test alone: the baseline gauges are process-wide, and other tests put baselines of the
    /// harness's main app in force.
    static let appId = "ABCDE12345.com.example.baselines"
    static let environment = [
        "ATTESTGUARD_APPS_NAMES": "main,prod,baselines",
        "ATTESTGUARD_APPS_BASELINES_APP_ID": appId,
        "ATTESTGUARD_APPS_BASELINES_ENVIRONMENTS": "development",
    ]

    @Test("the shipped baseline rule reviews keys above the app's p99 and no others", arguments: ServerBackend.available)
    func aboveBaseline(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            let engine = try #require(api.engine)
            // Ten keys: nine with metric 1, one with 2. Nearest rank: p50 1, p90 1, p99 2.
            var keys: [String] = []
            for index in 0..<10 {
                let (_, keyId) = try await ScoreRouteTests.attested(api, user: "base\(index)", appId: Self.appId)
                try await ScoreRouteTests.redeem(api, keyId: keyId, metric: index == 9 ? 2 : 1, appId: Self.appId)
                keys.append(keyId)
            }
            let job = RiskBaselineJob(store: engine.store, appIds: [Self.appId], clock: api.clock, owner: "test", logger: Logger(label: "test"))
            let computed = try await job.run()
            #expect(computed.map(\.p99) == [2])
            #expect(try await job.runIfDue().isEmpty, "once a day")
            try await RiskBaselineReloadService.load(store: engine.store, into: engine.baselines, logger: Logger(label: "test"))

            // Metrics that rose after the baseline: 5 and 3 are above its p99; 2 is at it; 1 is the norm.
            api.clock.advance(by: 60)
            try await ScoreRouteTests.redeem(api, keyId: keys[0], metric: 5, appId: Self.appId)
            try await ScoreRouteTests.redeem(api, keyId: keys[1], metric: 3, appId: Self.appId)
            var verdicts: [String: (decision: String?, fired: Bool, percentile: Double?, p99: Double?)] = [:]
            for (index, keyId) in [(0, keys[0]), (1, keys[1]), (2, keys[2]), (9, keys[9])] {
                let reply = try await api.post("/v1/score", json: ["appId": Self.appId, "keyId": keyId, "userId": "base\(index)"])
                #expect(reply.status == 200, "\(reply.text)")
                let signals = reply["signals"] as? [String: Any] ?? [:]
                verdicts["key\(index)"] = (
                    reply["decision"] as? String, ScoreRouteTests.reasons(reply)["above-app-baseline"] != nil,
                    signals["receipt.risk_metric_percentile"] as? Double, signals["app.risk_metric.p99"] as? Double
                )
            }
            #expect(verdicts["key0"]?.decision == "review")
            #expect(verdicts["key0"]?.fired == true)
            #expect(verdicts["key0"]?.percentile == 100)
            #expect(verdicts["key0"]?.p99 == 2)
            #expect(verdicts["key1"]?.decision == "review")
            #expect(verdicts["key1"]?.fired == true)
            #expect(verdicts["key2"]?.decision == "allow")
            #expect(verdicts["key2"]?.fired == false)
            #expect(verdicts["key2"]?.percentile == 90)
            #expect(verdicts["key9"]?.decision == "allow", "at the p99, not above it")
            #expect(verdicts["key9"]?.fired == false)
            #expect(verdicts["key9"]?.percentile == 100)

            let reason = ScoreRouteTests.reasons(try await api.post("/v1/score", json: ["appId": Self.appId, "keyId": keys[0], "userId": "base0"]))
            #expect(reason["above-app-baseline"] == "the device has 5 attested keys in 30 days, above the app's 99th percentile of 2")

            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            #expect(metrics.contains(#"attestguard_app_risk_metric_percentile{app="\#(Self.appId)",percentile="p99"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"attestguard_app_risk_metric_share{app="\#(Self.appId)",at_least="4"} 0"#))
        }
    }
}
