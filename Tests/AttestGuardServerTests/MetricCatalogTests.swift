import AttestVocabulary
import Foundation
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import RiskRules
import Testing

@Suite("Metrics: the catalog's names, types and HELP texts")
struct MetricCatalogTests {
    /// The `# HELP` and `# TYPE` lines of an exposition, by family.
    private static func families(_ text: String) -> (help: [String: String], type: [String: String]) {
        var help: [String: String] = [:]
        var type: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
            guard parts.count >= 4, parts[0] == "#" else { continue }
            if parts[1] == "HELP" { help[parts[2]] = parts[3] }
            if parts[1] == "TYPE" { type[parts[2]] = parts[3] }
        }
        return (help, type)
    }

    @Test("every attestguard_* family /metrics publishes is in the catalog, with its type and HELP text")
    func publishedFamilies() async throws {
        try await ServerHarness.run(.sqlite) { api in
            var app = SimulatedApps.make(user: "cata", device: "cata-1")
            #expect(try await api.attest(app).status == 201)
            #expect(try await api.assert(&app).status == 200)
            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            let (help, type) = Self.families(metrics.text)
            let published = type.keys.filter { $0.hasPrefix("attestguard_") }
            // What an attestation and an assertion publish, whatever else the suite has run in this process.
            for family in [MetricFamily.httpRequests, .httpErrors, .httpRequestDuration, .attestations, .assertions, .challenges, .verdicts,
                           .ruleDecisions, .scoreDuration, .rulesLoaded, .rulesReloads, .rulesLastReloadSuccessful] {
                #expect(published.contains(family.name), "\(family.name)")
            }
            for name in published {
                let family = try #require(MetricFamily.named(name), "\(name) is not in MetricFamily.all")
                #expect(type[name] == family.kind.rawValue, "\(name)")
                #expect(help[name] == family.help, "\(name)")
            }
        }
    }

    @Test("counters end in _total and every name is unique")
    func names() {
        #expect(Set(MetricFamily.all.map(\.name)).count == MetricFamily.all.count)
        for family in MetricFamily.all {
            #expect(family.name.hasPrefix("attestguard_"))
            #expect((family.kind == .counter) == family.name.hasSuffix("_total"), "\(family.name)")
            #expect(!family.help.isEmpty && !family.help.contains("\n"), "\(family.name)")
        }
    }

    @Test("failure series exist before the first failure, so that increase() sees it")
    func failuresPublishedAtZero() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            for series in [
                #"attestguard_assertions_total{result="counter_not_increasing"}"#,
                #"attestguard_assertions_total{result="request_binding_mismatch"}"#,
                #"attestguard_attestations_total{result="nonce_mismatch"}"#,
                #"attestguard_challenges_total{purpose="assertion",result="key_revoked"}"#,
                #"attestguard_devicecheck_requests_total{operation="validate_session",result="devicecheck_unavailable"}"#,
                #"attestguard_http_errors_total{status_class="5xx",code="store_unavailable"}"#,
                #"attestguard_http_errors_total{status_class="5xx",code="devicecheck_unavailable"}"#,
                #"attestguard_http_errors_total{status_class="4xx",code="nonce_mismatch"}"#,
                "attestguard_velocity_dropped_total", "attestguard_decision_log_dropped_total",
                "attestguard_distinct_dropped_total", "attestguard_review_openings_dropped_total",
                "attestguard_webhook_events_dropped_total",
                "attestguard_velocity_rolled_up_buckets_total", "attestguard_rules_last_reload_successful",
                "attestguard_rules_last_reload_success_timestamp_seconds",
            ] + RuleActionName.allCases.map({ #"attestguard_rule_actions_total{action=""# + $0.rawValue + #"",outcome="dropped"}"# }) {
                #expect(metrics.contains("\n" + series + " "), "\(series)")
            }
            // Codes only the gateways answer are not published by the server.
            #expect(!metrics.contains(#"code="attestguard_unavailable""#))
        }
    }

    @Test("an error answer counts under its code and status class")
    func errorAnswersCounted() async throws {
        try await ServerHarness.run(.sqlite) { api in
            func count(_ metrics: String) -> Double {
                let prefix = #"attestguard_http_errors_total{status_class="4xx",code="app_not_found"} "#
                return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) } ?? -1
            }
            let before = count(try await api.send(.get, "/metrics", apiKey: nil).text)
            let body = #"{"appId":"ABCDE12345.com.example.unknown","purpose":"attestation","userId":"u"}"#
            #expect(try await api.send(.post, "/v1/challenges", body: Data(body.utf8)).status == 404)
            let after = count(try await api.send(.get, "/metrics", apiKey: nil).text)
            #expect(before >= 0)
            #expect(after >= before + 1)
        }
    }
}
