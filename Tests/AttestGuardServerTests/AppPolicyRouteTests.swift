import AttestTestSupport
import Foundation
import HTTPTypes
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// Live app policy: `GET`, `PUT` and `DELETE /v1/admin/apps/{appId}/policy`, stored, in force at once in the
/// process that stores a change and in every process sharing the store within `apps.policyReloadSeconds`.
@Suite("HTTP: live app policy")
struct AppPolicyRouteTests {
    static let path = "/v1/admin/apps/\(ServerHarness.appId)/policy"
    static let environment = AnalystScopeTests.environment

    static func json(_ text: String) -> Data { Data(text.utf8) }

    /// `rollout.attestation_required` and `enforced` of a score verdict for a user.
    static func rollout(_ api: APIClient, user: String) async throws -> (required: Bool?, enforced: Bool?) {
        let reply = try await api.send(.post, "/v1/score", body: json(#"{"appId":"\#(ServerHarness.appId)","userId":"\#(user)"}"#))
        let signals = reply["signals"] as? [String: Any]
        return (signals?["rollout.attestation_required"] as? Bool, reply["enforced"] as? Bool)
    }

    @Test("GET shows the file's, the stored and the effective policy; PUT stores and applies at once; DELETE clears",
          arguments: ServerBackend.available)
    func storeAndClear(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            let before = try await api.send(.get, Self.path, apiKey: AnalystScopeTests.analystKey)
            #expect(before.status == 200, "\(before.text)")
            #expect(before.headers[.eTag] == "\"0\"")
            #expect((before["file"] as? [String: Any])?["mode"] as? String == "enforce")
            #expect(before["stored"] == nil)
            #expect(before["reloadSeconds"] as? Int == 5)
            let routes = (before["file"] as? [String: Any])?["routes"] as? [[String: Any]] ?? []
            #expect(routes.contains { $0["path"] as? String == "/api/promos/claim" && $0["protection"] as? String == "require" })
            #expect(try await Self.rollout(api, user: "pat").required == false)

            let change = Self.json(#"{"mode":"monitor","attestationRequiredPercent":100,"routes":{"/api/promos/claim":"score"}}"#)
            #expect(try await api.send(.put, Self.path, body: change, apiKey: AnalystScopeTests.analystKey).status == 403)
            let stored = try await api.send(.put, Self.path, body: change, apiKey: ServerHarness.adminKey, headers: [.ifMatch: "\"0\""])
            #expect(stored.status == 200, "\(stored.text)")
            #expect(stored.headers[.eTag] == "\"1\"")
            let effective = stored["effective"] as? [String: Any]
            #expect(effective?["mode"] as? String == "monitor")
            #expect(effective?["attestationRequiredPercent"] as? Int == 100)
            let effectiveRoutes = effective?["routes"] as? [[String: Any]] ?? []
            #expect(effectiveRoutes.contains { $0["path"] as? String == "/api/promos/claim" && $0["protection"] as? String == "score" })
            #expect((stored["file"] as? [String: Any])?["mode"] as? String == "enforce")
            #expect((stored["stored"] as? [String: Any])?["updatedBy"] as? String == "operator")
            #expect((stored["stored"] as? [String: Any])?["revision"] as? Int == 1)
            let verdict = try await Self.rollout(api, user: "pat")
            #expect(verdict.required == true)
            #expect(verdict.enforced == false)

            // A change made against a replaced revision changes nothing.
            let stale = try await api.send(.put, Self.path, body: Self.json("{}"), apiKey: ServerHarness.adminKey, headers: [.ifMatch: "\"0\""])
            #expect(stale.status == 412)
            #expect(stale.errorCode == "precondition_failed")

            let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
            #expect(metrics.contains(#"attestguard_app_policy_changes_total{app="\#(ServerHarness.appId)",setting="mode"}"#))
            #expect(metrics.contains(#"attestguard_app_verdicts_total{app="\#(ServerHarness.appId)",attestation="unattested"}"#))

            let cleared = try await api.send(.delete, Self.path, apiKey: ServerHarness.adminKey, headers: [.ifMatch: "\"1\""])
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(cleared["stored"] == nil)
            #expect(cleared.headers[.eTag] == "\"2\"", "a clear is a revision of its own")
            #expect((cleared["effective"] as? [String: Any])?["mode"] as? String == "enforce")
            #expect(try await Self.rollout(api, user: "pat").required == false)
            // A stale If-Match from before the clear stays stale: the revision never restarts.
            for stale in ["\"0\"", "\"1\""] {
                let late = try await api.send(.put, Self.path, body: change, apiKey: ServerHarness.adminKey, headers: [.ifMatch: stale])
                #expect(late.status == 412 && late.errorCode == "precondition_failed", "\(stale): \(late.text)")
            }
            #expect(try await api.send(.put, Self.path, body: change, apiKey: ServerHarness.adminKey, headers: [.ifMatch: "\"2\""]).headers[.eTag] == "\"3\"")
        }
    }

    @Test("bad changes are typed 4xx and store nothing; other apps' keys are refused")
    func refusals() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: Self.environment) { api in
            for (body, code) in [
                (#"{"mode":"off"}"#, "invalid_field"),
                (#"{"attestationRequiredPercent":101}"#, "invalid_field"),
                (#"{"attestationRequiredPercnt":5}"#, "invalid_field"),
                (#"{"routes":{"/not/a/route":"score"}}"#, "invalid_field"),
                (#"{"routes":{"/api/promos/claim":"sometimes"}}"#, "invalid_field"),
                (#"{"mode":null}"#, "invalid_field"),
                (#"{"allowedCategories":{"staging":["app_store"]}}"#, "invalid_field"),
                (#"{"allowedCategories":{"production":[]}}"#, "invalid_field"),
                (#"{"allowedCategories":{"production":["appstore"]}}"#, "invalid_field"),
                (#"{"allowedCategories":{"production":["unknown(-3)"]}}"#, "invalid_field"),
                (#"{"allowedCategories":{"production":"app_store"}}"#, "invalid_field"),
                (#"{"minimumBundleVersion":"4.2-beta"}"#, "invalid_field"),
                (#"{"minimumBundleVersion":4.2}"#, "invalid_field"),
                (#"{"requireAuthenticatorExtensions":"yes"}"#, "invalid_field"),
                (#"["monitor"]"#, nil),
                (#"{"mode":"#, "malformed_json"),
            ] as [(String, String?)] {
                let reply = try await api.send(.put, Self.path, body: Self.json(body), apiKey: ServerHarness.adminKey)
                #expect(reply.status == 400, "\(body): \(reply.status) \(reply.text)")
                if let code { #expect(reply.errorCode == code, "\(body): \(reply.text)") }
            }
            let badMatch = try await api.send(.put, Self.path, body: Self.json("{}"), apiKey: ServerHarness.adminKey, headers: [.ifMatch: "3"])
            #expect(badMatch.status == 400)
            #expect(try await api.send(.get, Self.path, apiKey: ServerHarness.adminKey)["stored"] == nil)
            // A key for another app, an unknown app, and a key without a scope for it.
            let other = try await api.send(.put, Self.path, body: Self.json("{}"), apiKey: AnalystScopeTests.narrowAdminKey)
            #expect(other.status == 403)
            let unknown = try await api.send(.get, "/v1/admin/apps/ABCDE12345.com.example.nothing/policy", apiKey: ServerHarness.adminKey)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "app_not_found")
            #expect(try await api.send(.get, Self.path, apiKey: ServerHarness.apiKey).status == 403)
            // The production-only app has no gateway policy file: no default protection to change.
            let noPolicy = try await api.send(.put, "/v1/admin/apps/\(ServerHarness.productionOnlyAppId)/policy",
                                              body: Self.json(#"{"defaultProtection":"score"}"#), apiKey: ServerHarness.adminKey)
            #expect(noPolicy.status == 400)
        }
    }

    @Test("a rollout change through one server reaches another on the same PostgreSQL within one reload period",
          .enabled(if: TestPostgres.isEnabled, "no PostgreSQL"))
    func sharedAcrossProcesses() async throws {
        let url = try #require(try await ServerHarness.databaseURL(.postgres))
        let environment = Self.environment.merging(["ATTESTGUARD_APPS_POLICY_RELOAD_SECONDS": "1"]) { _, new in new }
        try await ServerHarness.run(.postgres, extraEnvironment: environment, postgresURL: url) { first in
            try await ServerHarness.run(.postgres, extraEnvironment: environment, postgresURL: url) { second in
                #expect(try await Self.rollout(second, user: "quinn").required == false)
                let stored = try await first.send(.put, Self.path, body: Self.json(#"{"attestationRequiredPercent":100}"#), apiKey: ServerHarness.adminKey)
                #expect(stored.status == 200, "\(stored.text)")
                // One reload period is a second; the bound is wide for a busy machine, the answer comes long before.
                let deadline = ContinuousClock.now + .seconds(60)
                var required = false
                while !required, ContinuousClock.now < deadline {
                    required = try await Self.rollout(second, user: "quinn").required == true
                    if !required { try await Task.sleep(for: .milliseconds(200)) }
                }
                #expect(required, "the second server never took the stored percentage")
                let seen = try await second.send(.get, Self.path, apiKey: ServerHarness.adminKey)
                #expect((seen["effective"] as? [String: Any])?["attestationRequiredPercent"] as? Int == 100)
            }
        }
    }
}
