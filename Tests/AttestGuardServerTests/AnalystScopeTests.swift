import Foundation
import HTTPTypes
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// The `analyst` scope: read-only, limited to the key's apps; and the same app filtering on admin's read routes.
@Suite("HTTP: the analyst scope and app filtering of read routes")
struct AnalystScopeTests {
    static let analystKey = "test-analyst-key-0123456789"
    static let narrowAdminKey = "test-narrow-admin-key-0123456789"
    static let policies = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Gateway/policy").path

    /// The harness's keys plus an analyst for the main app and an admin for the production-only app.
    static let environment = [
        "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,analyst,narrowadmin",
        "ATTESTGUARD_API_KEYS_ANALYST_SECRET_ENV": "TEST_ANALYST_KEY",
        "ATTESTGUARD_API_KEYS_ANALYST_SCOPES": "analyst",
        "ATTESTGUARD_API_KEYS_ANALYST_APPS": ServerHarness.appId,
        "ATTESTGUARD_API_KEYS_NARROWADMIN_SECRET_ENV": "TEST_NARROW_ADMIN_KEY",
        "ATTESTGUARD_API_KEYS_NARROWADMIN_SCOPES": "admin",
        "ATTESTGUARD_API_KEYS_NARROWADMIN_APPS": ServerHarness.productionOnlyAppId,
        "ATTESTGUARD_GATEWAY_POLICY_DIRECTORY": policies,
        "TEST_ANALYST_KEY": analystKey,
        "TEST_NARROW_ADMIN_KEY": narrowAdminKey,
    ]

    @Test("an analyst reads its app's keys, rules and gateway policies, and changes nothing", arguments: ServerBackend.available)
    func analystReadsOnly(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            let app = SimulatedApps.make(user: "ana", device: "ana-1")
            #expect(try await api.attest(app).status == 201)
            let keyPath = "/v1/apps/\(ServerHarness.appId)/keys/\(app.key.keyIdBase64URL)"
            let read = try await api.send(.get, keyPath, apiKey: Self.analystKey)
            #expect(read.status == 200, "\(read.text)")
            #expect(try await api.send(.get, "/v1/admin/rules", apiKey: Self.analystKey).status == 200)
            let gateway = try await api.send(.get, "/v1/admin/gateway", apiKey: Self.analystKey)
            #expect(gateway.status == 200)
            #expect(gateway["apps"] as? [String] == [ServerHarness.appId])

            // Another app's key: refused, as for any key without that app.
            let other = try await api.send(.get, "/v1/apps/\(ServerHarness.productionOnlyAppId)/keys/\(app.key.keyIdBase64URL)", apiKey: Self.analystKey)
            #expect(other.status == 403)
            #expect(other.errorCode == "forbidden")
            // Nothing that changes state or makes a verdict.
            let challenge = Data(#"{"appId":"\#(ServerHarness.appId)","purpose":"attestation","userId":"ana"}"#.utf8)
            for (method, path, body) in [
                (HTTPRequest.Method.post, "/v1/challenges", challenge), (.post, "/v1/admin/rules/reload", nil),
                (.post, "/v1/admin/gateway/reload", nil), (.post, keyPath + "/revoke", Data("{}".utf8)),
                (.post, "/v1/score", Data(#"{"appId":"\#(ServerHarness.appId)","keyId":"\#(app.key.keyIdBase64)"}"#.utf8)),
            ] as [(HTTPRequest.Method, String, Data?)] {
                let refused = try await api.send(method, path, body: body, apiKey: Self.analystKey)
                #expect(refused.status == 403, "\(method) \(path): \(refused.status) \(refused.text)")
            }
        }
    }

    @Test("an admin key limited to one app lists only that app's gateway policies, and may not reload every app's")
    func adminReadsAreFiltered() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: Self.environment) { api in
            let narrow = try await api.send(.get, "/v1/admin/gateway", apiKey: Self.narrowAdminKey)
            #expect(narrow.status == 200)
            #expect(narrow["apps"] as? [String] == [])
            let everything = try await api.send(.get, "/v1/admin/gateway", apiKey: ServerHarness.adminKey)
            #expect(everything["apps"] as? [String] == [ServerHarness.appId])
            let reload = try await api.send(.post, "/v1/admin/gateway/reload", apiKey: Self.narrowAdminKey)
            #expect(reload.status == 403 && reload.errorCode == "forbidden", "\(reload.text)")
            #expect(try await api.send(.post, "/v1/admin/gateway/reload", apiKey: ServerHarness.adminKey).status == 200)
            #expect(try await api.send(.post, "/v1/admin/rules/reload", apiKey: Self.narrowAdminKey).status == 403)
        }
    }
}
