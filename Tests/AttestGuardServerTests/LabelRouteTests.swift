import AttestGuardStore
import AttestVocabulary
import Foundation
import HTTPTypes
@testable import AttestGuardEngine
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// `POST /v1/labels`: scopes, app filtering, idempotency, the stored subjects (hashed as the decision log hashes
/// them, joined to a decision by its request id), and every refusal typed.
@Suite("HTTP: fraud labels")
struct LabelRouteTests {
    static let labellerKey = "test-labeller-key-0123456789"
    static let app = ServerHarness.appId
    static let otherApp = ServerHarness.productionOnlyAppId

    /// The analyst scope test's keys plus a labeller (`analyst:write`) limited to the main app.
    static let environment = AnalystScopeTests.environment.merging([
        "ATTESTGUARD_API_KEYS_NAMES": "gateway,narrow,operator,analyst,narrowadmin,labeller",
        "ATTESTGUARD_API_KEYS_LABELLER_SECRET_ENV": "TEST_LABELLER_KEY",
        "ATTESTGUARD_API_KEYS_LABELLER_SCOPES": "analyst:write",
        "ATTESTGUARD_API_KEYS_LABELLER_APPS": app,
        "TEST_LABELLER_KEY": labellerKey,
    ]) { _, new in new }

    static func post(_ api: APIClient, _ body: [String: Any], apiKey: String? = labellerKey) async throws -> APIClient.Reply {
        try await api.post("/v1/labels", json: body, apiKey: apiKey)
    }

    static func stored(_ api: APIClient, app: String? = app) async throws -> [FraudLabelRecord] {
        try await #require(api.engine).store.labels(appId: app)
    }

    @Test("a decision labelled by its request id joins the log; posting again is unchanged, a later word replaces it", arguments: ServerBackend.available)
    func idempotentAndJoined(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            var headers = HTTPFields()
            headers[HTTPField.Name("X-Request-Id")!] = "case-req-1"
            let body = Data(#"{"appId":"\#(Self.app)","userId":"lena","deviceId":"lena-phone"}"#.utf8)
            let scored = try await api.send(.post, "/v1/score", body: body, apiKey: ServerHarness.apiKey, headers: headers)
            #expect(scored.status == 200, "\(scored.text)")
            let engine = try #require(api.engine)
            try await engine.scorer.decisionLog.flush()

            let label: [String: Any] = ["appId": Self.app, "requestId": "case-req-1", "label": "fraud", "source": "chargebacks", "labelledAt": "2026-11-20T10:00:00Z"]
            let first = try await Self.post(api, label)
            #expect(first.status == 200, "\(first.text)")
            #expect(first["created"] as? Int == 1 && first["replaced"] as? Int == 0 && first["unchanged"] as? Int == 0)
            #expect(first["outcomes"] as? [String] == ["created"])
            let again = try await Self.post(api, label)
            #expect(again["outcomes"] as? [String] == ["unchanged"] && again["unchanged"] as? Int == 1)
            var later = label
            later["label"] = "legitimate"
            later["labelledAt"] = "2026-11-21T10:00:00Z"
            #expect(try await Self.post(api, later)["outcomes"] as? [String] == ["replaced"])

            // A batch: the user and device stored as the log's keyed hashes, never as the ids.
            let batch = try await Self.post(api, ["labels": [
                ["appId": Self.app, "userId": "lena", "label": "fraud", "source": "support-case-9"],
                ["appId": Self.app, "deviceId": "lena-phone", "label": "fraud", "source": "support-case-9"],
                ["appId": Self.app, "userId": "lena", "label": "fraud", "source": "support-case-9"],
            ]])
            #expect(batch["outcomes"] as? [String] == ["created", "created", "unchanged"], "\(batch.text)")
            let entry = try #require(try await engine.store.decision(appId: Self.app, requestId: "case-req-1"))
            let labels = try await Self.stored(api)
            #expect(labels.count == 3)
            #expect(Set(labels.map(\.subject)) == ["case-req-1", try #require(entry.userHash), try #require(entry.deviceHash)])
            #expect(!labels.contains { $0.subject.contains("lena") })
            let user = try #require(labels.first { $0.kind == .user })
            #expect(user.labelledAt == api.clock.now(), "no time given: the clock's now")
            let applying = DecisionLabels(try await engine.store.labels(for: [entry]))
            #expect(applying.label(of: entry)?.kind == .decision && applying.label(of: entry)?.label == .legitimate)
        }
    }

    @Test("attestation and assertion verdicts are logged with their request ids, which labels name", arguments: ServerBackend.available)
    func verificationRequestIds(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            func headers(_ id: String) -> HTTPFields {
                var fields = HTTPFields()
                fields[HTTPField.Name("X-Request-Id")!] = id
                return fields
            }
            var app = SimulatedApps.make(user: "ida", device: "ida-phone")
            let challenge = try await api.challenge(purpose: "attestation", userId: "ida")
            let attestation = try JSONEncoder().encode(try app.attestation(challenge: challenge, at: api.clock.now()))
            #expect(try await api.send(.post, "/v1/attestations", body: attestation, headers: headers("att-req-1")).status == 201)
            let assertionChallenge = try await api.challenge(purpose: "assertion", userId: "ida", keyId: Data(app.key.keyId).base64EncodedString())
            let assertion = try JSONEncoder().encode(app.assertion(challenge: assertionChallenge, path: "/api/orders"))
            #expect(try await api.send(.post, "/v1/assertions", body: assertion, headers: headers("ass-req-1")).status == 200)
            let engine = try #require(api.engine)
            try await engine.scorer.decisionLog.flush()
            #expect(try await engine.store.decision(appId: Self.app, requestId: "att-req-1")?.endpoint == .attestation)
            #expect(try await engine.store.decision(appId: Self.app, requestId: "ass-req-1")?.endpoint == .assertion)
            let reply = try await Self.post(api, ["appId": Self.app, "requestId": "ass-req-1", "label": "fraud", "source": "cb"])
            #expect(reply["outcomes"] as? [String] == ["created"])
        }
    }

    @Test("a key limited to app A cannot label app B, not even inside a batch; read-only keys cannot label", arguments: ServerBackend.available)
    func appFiltering(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            let own = ["appId": Self.app, "keyId": Data(repeating: 1, count: 32).base64EncodedString(), "label": "fraud", "source": "cb"]
            let foreign = ["appId": Self.otherApp, "userId": "bob", "label": "fraud", "source": "cb"]
            let refused = try await Self.post(api, foreign)
            #expect(refused.status == 403 && refused.errorCode == "forbidden", "\(refused.text)")
            let mixed = try await Self.post(api, ["labels": [own, foreign]])
            #expect(mixed.status == 403 && mixed.errorCode == "forbidden")
            #expect(try await Self.stored(api, app: nil).isEmpty, "nothing of a refused batch is stored")
            for key in [AnalystScopeTests.analystKey, ServerHarness.apiKey] {
                let readOnly = try await Self.post(api, own, apiKey: key)
                #expect(readOnly.status == 403 && readOnly.errorCode == "forbidden")
            }
            #expect(try await Self.post(api, own, apiKey: nil).status == 401)
            // The narrow admin may label only its own app; the full admin any configured app.
            #expect(try await Self.post(api, own, apiKey: AnalystScopeTests.narrowAdminKey).status == 403)
            #expect(try await Self.post(api, foreign, apiKey: AnalystScopeTests.narrowAdminKey).status == 200)
            #expect(try await Self.post(api, own).status == 200)
            let stored = try await Self.stored(api, app: nil)
            #expect(stored.map(\.appId).sorted() == [Self.app, Self.otherApp].sorted())
            #expect(stored.first { $0.kind == .key }?.subject == Data(repeating: 1, count: 32).base64EncodedString())
        }
    }

    @Test("a deletion names a subject as a label does: by source or all, own apps only, again harmless", arguments: ServerBackend.available)
    func deletion(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Self.environment) { api in
            func label(_ source: String, app: String = Self.app) -> [String: Any] {
                ["appId": app, "userId": "carol", "label": "fraud", "source": source]
            }
            let device: [String: Any] = ["appId": Self.app, "deviceId": "carol", "label": "legitimate", "source": "cb"]
            #expect(try await Self.post(api, ["labels": [label("cb"), label("case-1"), label("case-2"), device]]).status == 200)
            #expect(try await Self.post(api, label("cb", app: Self.otherApp), apiKey: ServerHarness.adminKey).status == 200)
            func delete(_ body: [String: Any], apiKey: String? = Self.labellerKey) async throws -> APIClient.Reply {
                try await api.post("/v1/labels/delete", json: body, apiKey: apiKey)
            }
            let one = try await delete(["appId": Self.app, "userId": "carol", "source": "case-1"])
            #expect(one.status == 200 && one.json["deleted"] as? Int == 1, "\(one.text)")
            // The user's other labels and the device of the same id stay.
            #expect(try await Self.stored(api).map(\.source).sorted() == ["case-2", "cb", "cb"])
            let rest = try await delete(["appId": Self.app, "userId": "carol"])
            #expect(rest.json["deleted"] as? Int == 2, "\(rest.text)")
            #expect(try await delete(["appId": Self.app, "userId": "carol"]).json["deleted"] as? Int == 0)
            #expect(try await Self.stored(api).map(\.kind) == [.device])
            // Another app's labels: not through a key limited to this app, nor a read-only key; the admin may.
            let foreign: [String: Any] = ["appId": Self.otherApp, "userId": "carol"]
            #expect(try await delete(foreign).errorCode == "forbidden")
            #expect(try await delete(foreign, apiKey: AnalystScopeTests.analystKey).errorCode == "forbidden")
            #expect(try await delete(foreign, apiKey: nil).status == 401)
            #expect(try await Self.stored(api, app: Self.otherApp).count == 1)
            #expect(try await delete(foreign, apiKey: ServerHarness.adminKey).json["deleted"] as? Int == 1)
            let cases: [([String: Any], Int, String)] = [
                (["userId": "carol"], 400, "missing_field"),
                (["appId": Self.app], 400, "missing_field"),
                (["appId": Self.app, "userId": "carol", "deviceId": "carol"], 400, "invalid_field"),
                (["appId": Self.app, "userId": "carol", "label": "fraud"], 400, "invalid_field"),
                (["appId": Self.app, "userId": "carol", "labelledAt": "2026-01-01T00:00:00Z"], 400, "invalid_field"),
                (["appId": Self.app, "userId": "carol", "source": String(repeating: "s", count: 129)], 400, "invalid_field"),
                (["appId": Self.app, "keyId": "short"], 400, "invalid_field"),
                (["appId": Self.app, "userId": 7], 400, "invalid_field"),
            ]
            for (body, status, code) in cases {
                let reply = try await delete(body)
                #expect(reply.status == status && reply.errorCode == code, "\(body.keys.sorted()): \(reply.status) \(reply.text.prefix(300))")
            }
            #expect(try await Self.stored(api).count == 1, "a refused deletion deletes nothing")
        }
    }

    @Test("every malformed label is a typed 4xx and stores nothing")
    func refusals() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: Self.environment) { api in
            let base: [String: Any] = ["appId": Self.app, "userId": "u", "label": "fraud", "source": "cb"]
            func with(_ changes: [String: Any?]) -> [String: Any] {
                var body = base
                for (key, value) in changes { body[key] = value }
                return body
            }
            let cases: [([String: Any], Int, String)] = [
                (with(["label": nil]), 400, "missing_field"),
                (with(["source": nil]), 400, "missing_field"),
                (with(["appId": nil]), 400, "missing_field"),
                (with(["userId": nil]), 400, "missing_field"),
                (with(["label": "maybe"]), 400, "invalid_field"),
                (with(["deviceId": "d"]), 400, "invalid_field"),
                (with(["keyId": "short"]), 400, "invalid_field"),
                (with(["userId": nil, "requestId": "has space"]), 400, "invalid_field"),
                (with(["source": String(repeating: "s", count: 129)]), 400, "invalid_field"),
                (with(["labelledAt": "yesterday"]), 400, "invalid_field"),
                (with(["labelledAt": "2030-01-01T00:00:00Z"]), 400, "invalid_field"),
                (with(["appId": "ABCDE12345.com.example.unknown"]), 403, "forbidden"),
                (["labels": [base, with(["label": "maybe"])]], 400, "invalid_field"),
                (["labels": [base], "appId": Self.app], 400, "invalid_field"),
                (["labels": [] as [Any]], 400, "missing_field"),
                (["labels": Array(repeating: base, count: 1_001)], 400, "too_many_labels"),
            ]
            for (body, status, code) in cases {
                let reply = try await Self.post(api, body)
                #expect(reply.status == status && reply.errorCode == code, "\(body.keys.sorted()): \(reply.status) \(reply.text.prefix(300))")
            }
            let batchError = try await Self.post(api, ["labels": [base, with(["label": "maybe"])]])
            #expect(batchError.text.contains("labels[1]"), "\(batchError.text)")
            let unknown = try await Self.post(api, with(["appId": "ABCDE12345.com.example.unknown"]), apiKey: ServerHarness.adminKey)
            #expect(unknown.status == 404 && unknown.errorCode == "app_not_found")
            #expect(try await Self.stored(api, app: nil).isEmpty)
        }
    }
}
