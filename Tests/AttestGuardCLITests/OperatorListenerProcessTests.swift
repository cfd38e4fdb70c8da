import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

/// `operator.port`: the operational routes on a listener of their own, and the API listener without them.
@Suite("Process: the operator listener")
struct OperatorListenerProcessTests {
    static func status(_ url: URL) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.dataShieldedFromCancellation(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("the API listener answers /healthz and the API only; the operator listener /metrics, /readyz and /openapi.yaml")
    func separateListeners() async throws {
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-operator-\(UUID().uuidString).sqlite").path
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: sqlite)
        environment["ATTESTGUARD_OPERATOR_PORT"] = "0"
        environment["ATTESTGUARD_LOG_LEVEL"] = "info"
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }
        let operatorURL = try #require(server.operatorURL)
        #expect(operatorURL.port != server.baseURL.port)

        #expect(try await Self.status(server.baseURL.appendingPathComponent("healthz")).0 == 200)
        for path in ["metrics", "readyz", "openapi.yaml"] {
            let (status, body) = try await Self.status(server.baseURL.appendingPathComponent(path))
            #expect(status == 404, "/\(path) on the API listener: \(status)")
            #expect(body.contains("not_found"))
        }
        let challenge = try await server.challenge(purpose: "attestation", userId: "operator-user")
        #expect(!challenge.isEmpty)

        let (ready, readiness) = try await Self.status(operatorURL.appendingPathComponent("readyz"))
        #expect(ready == 200)
        #expect(readiness.contains(#""mode":"simulator""#))
        let (metricsStatus, metrics) = try await Self.status(operatorURL.appendingPathComponent("metrics"))
        #expect(metricsStatus == 200)
        #expect(metrics.contains(#"attestguard_challenges_total{purpose="attestation",result="issued"} 1"#), "\(metrics.prefix(2_000))")
        #expect(try await Self.status(operatorURL.appendingPathComponent("openapi.yaml")).0 == 200)
        #expect(try await Self.status(operatorURL.appendingPathComponent("healthz")).0 == 200)
        // The API is not on the operator listener.
        #expect(try await Self.status(operatorURL.appendingPathComponent("v1/challenges")).0 == 404)
        #expect(server.stopAndReadLog().contains(#"operator=http://127.0.0.1:0"#))
    }
}
