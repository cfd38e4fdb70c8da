import Foundation
import HTTPTypes
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import AttestGuardStore
import Testing

@Suite("HTTP: operations routes")
struct OperationsTests {
    @Test("healthz, readyz, metrics and the OpenAPI document")
    func operations() async throws {
        try await ServerHarness.run(.sqlite) { api in
            #expect(try await api.send(.get, "/healthz", apiKey: nil).status == 200)
            let ready = try await api.send(.get, "/readyz", apiKey: nil)
            #expect(ready.status == 200)
            #expect(ready["mode"] as? String == "simulator")
            #expect(ready["version"] as? String == AttestGuardVersion.version)
            #expect(ready["commit"] as? String == AttestGuardVersion.commit)
            #expect(ready["schemaVersion"] as? Int == Migration.sqlite.map(\.version).max())

            let app = SimulatedApps.make(user: "sam", device: "sam-1")
            #expect(try await api.attest(app).status == 201)
            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"attestguard_attestations_total{result="registered"}"#))
            #expect(metrics.text.contains("attestguard_http_requests_total"))
            #expect(metrics.text.contains(#"attestguard_verdicts_total{endpoint="attestation",decision="allow",enforced="true"}"#), "\(metrics.text)")
            #expect(metrics.text.contains(#"attestguard_rule_decisions_total{endpoint="attestation",decision="allow"}"#))
            #expect(metrics.text.contains("attestguard_score_duration_seconds"))
            #expect(metrics.text.contains("attestguard_rules_loaded"))
            let commit = AttestGuardVersion.commit ?? ""
            #expect(metrics.text.contains(#"attestguard_build_info{version="\#(AttestGuardVersion.version)",commit="\#(commit)"} 1"#), "\(metrics.text)")
            // Buckets fit for a verdict of about a millisecond (the library's default starts at 5 ms).
            #expect(metrics.text.contains(#"attestguard_http_request_duration_seconds_bucket{route="/healthz",method="GET",le="0.001"}"#))
            #expect(metrics.text.contains(#"attestguard_score_duration_seconds_bucket{le="0.0005"}"#))
            // Both reload series exist before any reload, so `increase()` sees the first rejection.
            #expect(metrics.text.contains(#"attestguard_rules_reloads_total{result="rejected"}"#))
            #expect(metrics.text.contains(#"attestguard_rules_reloads_total{result="loaded"}"#))

            let document = try await api.send(.get, "/openapi.yaml", apiKey: nil)
            #expect(document.status == 200)
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("OpenAPI/openapi.yaml")
            let expected = try String(contentsOf: file, encoding: .utf8)
            #expect(document.text == expected.trimmingCharacters(in: .newlines), "the build embeds OpenAPI/openapi.yaml (EmbedResources plugin): a stale build folder?")
        }
    }

    #if os(Linux)
    @Test("/metrics has the process's CPU, memory, descriptors and start time, read from /proc at each scrape")
    func processMetrics() async throws {
        try await ServerHarness.run(.sqlite) { api in
            _ = try await api.send(.get, "/metrics", apiKey: nil)
            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            func value(_ name: String) -> Double? {
                metrics.text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            #expect(metrics.text.contains("# TYPE process_cpu_seconds_total counter"))
            #expect(metrics.text.contains("# HELP process_resident_memory_bytes "))
            let cpu = try #require(value("process_cpu_seconds_total"))
            #expect(cpu > 0)
            #expect(try #require(value("process_resident_memory_bytes")) > 1_000_000)
            let open = try #require(value("process_open_fds"))
            #expect(open >= 3)
            #expect(try #require(value("process_max_fds")) >= open)
            let started = try #require(value("process_start_time_seconds"))
            // The test process started before this test and at most a day ago (wide bounds: no race with the clock).
            #expect(started <= Date().timeIntervalSince1970 + 60)
            #expect(started > Date().timeIntervalSince1970 - 86_400)
            // A counter never goes back.
            let later = try await api.send(.get, "/metrics", apiKey: nil)
            let again = later.text.split(separator: "\n").first { $0.hasPrefix("process_cpu_seconds_total ") }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect(try #require(again) >= cpu)
        }
    }
    #endif

    @Test("a method no RFC names is counted as method other, so that a client inventing methods adds no series")
    func inventedMethodsShareOneLabel() async throws {
        let other = #"attestguard_http_requests_total{route="unmatched",method="other","#
        try await ServerHarness.run(.sqlite) { api in
            for invented in ["BREW", "PROPFIND-\(UUID().uuidString.prefix(8))"] {
                let reply = try await api.send(try #require(HTTPRequest.Method(invented)), "/no-such-route", apiKey: nil)
                #expect(reply.status >= 400 && reply.status < 500, "\(invented): \(reply.status)")
            }
            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            #expect(metrics.contains(other), "\(metrics)")
            #expect(!metrics.contains(#"method="BREW""#) && !metrics.contains(#"method="PROPFIND-"#))
        }
        #expect(HTTPRequestMetrics.methodLabel("PATCH") == "PATCH")
        #expect(HTTPRequestMetrics.methodLabel("get") == "other")
    }

    @Test("requests no route matched are counted as route unmatched; /metrics scrapes are not counted")
    func routeLabels() async throws {
        // The registry is the test process's, shared with tests running beside this one: compare counts, not values.
        let unmatched = #"attestguard_http_requests_total{route="unmatched",method="GET",status="404"} "#
        @Sendable func count(_ text: String) -> Double {
            text.split(separator: "\n").first { $0.hasPrefix(unmatched) }.flatMap { Double($0.dropFirst(unmatched.count)) } ?? 0
        }
        try await ServerHarness.run(.sqlite) { api in
            let before = count(try await api.send(.get, "/metrics", apiKey: nil).text)
            #expect(try await api.send(.get, "/no-such-route", apiKey: nil).status == 404)
            _ = try await api.send(.get, "/metrics", apiKey: nil)
            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            #expect(count(metrics.text) >= before + 1, "\(metrics.text)")
            #expect(!metrics.text.contains(#"route="NotFound""#))
            #expect(!metrics.text.contains(#"route="/metrics""#))
        }
        #expect(ObservabilityMiddleware.routeLabel("/v1/score") == "/v1/score")
        #expect(ObservabilityMiddleware.routeLabel(nil) == "unmatched")
    }

    @Test("/proc/<pid>/stat: fields counted from the command name's last parenthesis")
    func procStat() {
        let fields = (3...52).map { $0 == 14 ? "1234" : $0 == 15 ? "56" : $0 == 22 ? "987654" : $0 == 24 ? "4321" : "0" }
        let text = "4242 (a (weird) name) " + fields.joined(separator: " ") + "\n"
        #expect(ProcStat(parsing: text) == ProcStat(userTicks: 1234, systemTicks: 56, startTicks: 987_654, residentPages: 4321))
        #expect(ProcStat(parsing: "4242 (no fields)") == nil)
        #expect(ProcStat(parsing: "garbage") == nil)
    }

    @Test("the embedded version is the VERSION file's (embedded at build time by the EmbedResources plugin)")
    func versionFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("VERSION")
        #expect(try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == AttestGuardVersion.version)
    }

    @Test("every route the server answers is in the OpenAPI document")
    func routesDocumented() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("OpenAPI/openapi.yaml")
        let document = try String(contentsOf: file, encoding: .utf8)
        for path in [
            "/v1/challenges:", "/v1/attestations:", "/v1/assertions:", "/v1/apps/{appId}/keys/{keyId}:",
            "/v1/apps/{appId}/keys/{keyId}/revoke:", "/v1/devicecheck/query:", "/v1/devicecheck/update:",
            "/v1/devicecheck/validate:", "/healthz:", "/readyz:", "/metrics:", "/openapi.yaml:",
        ] {
            #expect(document.contains("\n  \(path)"), "\(path) is not documented")
        }
    }
}
