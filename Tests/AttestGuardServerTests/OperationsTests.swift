import Foundation
import AttestGuardServer
import AttestGuardStorage
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
            #expect(metrics.text.contains(#"attestguard_build_info{version="\#(AttestGuardVersion.version)"} 1"#), "\(metrics.text)")
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
            #expect(document.text == expected.trimmingCharacters(in: .newlines), "run scripts/embed-resources.py after editing OpenAPI/openapi.yaml")
        }
    }

    @Test("the embedded version is the VERSION file's (run scripts/embed-resources.py after editing it)")
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
