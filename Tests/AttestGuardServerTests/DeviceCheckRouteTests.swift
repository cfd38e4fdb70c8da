import AttestVocabulary
import FakeApple
import AttestCore
import AttestGuardEngine
import AttestTestSupport
import Foundation
import Hummingbird
import AttestGuardStore
import AttestGuardSQLite
import Testing

struct DeviceCheckRouteTests {
    typealias Harness = DeviceCheckHarness
    static let appId = ServerHarness.appId

    static func subject(_ kind: String, _ id: String) -> [String: Any] { ["kind": kind, "id": id] }

    @Test("update then query answers the bits, stored under the subject", arguments: ServerBackend.available)
    func updateThenQuery(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, fake in
            let token = Harness.token("device-update-query")
            let subject = Self.subject("user", "user-77")
            let updated = try await api.post(
                "/v1/devicecheck/update",
                json: ["appId": Self.appId, "deviceToken": token, "subject": subject, "bit0": true],
                apiKey: Harness.readWriteKey
            )
            #expect(updated.status == 200, "\(updated.text)")
            #expect(updated["found"] as? Bool == true)
            #expect(updated["bit0"] as? Bool == true)
            #expect(updated["bit1"] == nil)
            #expect(updated["lastUpdateTime"] as? String == "2026-11")
            #expect(updated["environment"] as? String == "production")
            #expect(updated["appId"] as? String == Self.appId)
            #expect((updated["subject"] as? [String: Any])?["id"] as? String == "user-77")
            #expect(!updated.text.contains(token))

            api.clock.advance(by: 60)
            let queried = try await api.post(
                "/v1/devicecheck/query",
                json: ["appId": Self.appId, "deviceToken": Harness.token("device-update-query"), "subject": subject],
                apiKey: Harness.readWriteKey
            )
            #expect(queried.status == 200, "\(queried.text)")
            #expect(queried["found"] as? Bool == true)
            #expect(queried["bit0"] as? Bool == true)
            #expect(queried["bit1"] as? Bool == false)
            #expect(queried["lastUpdateTime"] as? String == "2026-11")
            #expect(queried["observedAt"] as? String == "2026-11-22T12:01:00.000Z")

            // A reader learns the bits of the device it holds a token for, and files nothing: not under this
            // subject, and not under a victim's it names with another device's token.
            api.clock.advance(by: 60)
            let victim = Self.subject("user", "victim-1")
            let read = try await api.post(
                "/v1/devicecheck/query",
                json: ["appId": Self.appId, "deviceToken": Harness.token("device-update-query"), "subject": victim],
                apiKey: Harness.readOnlyKey
            )
            #expect(read.status == 200 && read["bit0"] as? Bool == true, "\(read.text)")
            #expect(read["observedAt"] as? String == "2026-11-22T12:02:00.000Z")

            let engine = try #require(api.engine)
            #expect(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .user, value: "victim-1")) == nil)
            let stored = try #require(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .user, value: "user-77")))
            #expect(stored.environment == .production)
            #expect(stored.bit0 == true && stored.bit1 == false && stored.found)
            #expect(stored.observedAt == SimulatorFixtures.now.addingTimeInterval(60))
            #expect(!String(reflecting: stored).contains(token))
            // Nothing under another subject kind or the other environment.
            #expect(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .device, value: "user-77")) == nil)
            #expect(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .user, value: "user-77"), environment: .development) == nil)
            #expect(fake.state.stats.deviceCheckRequests == 3)

            // A second update of the other bit keeps the first.
            let second = try await api.post(
                "/v1/devicecheck/update",
                json: ["appId": Self.appId, "deviceToken": Harness.token("device-update-query"), "subject": subject, "bit1": true],
                apiKey: Harness.readWriteKey
            )
            #expect(second.status == 200)
            #expect(second["bit0"] as? Bool == true)
            #expect(second["bit1"] as? Bool == true)

            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            #expect(metrics.text.contains("attestguard_devicecheck_requests_total"))
            #expect(metrics.text.contains(#"operation="update""#))
        }
    }

    @Test("a device never set: found false, stored as such, for this app only", arguments: ServerBackend.available)
    func neverSet(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, _ in
            let app = SimulatedApps.make(user: "ivy", device: "ivy-phone")
            #expect(try await api.attest(app).status == 201)
            let keyId = app.key.keyIdBase64
            let reply = try await api.post(
                "/v1/devicecheck/query",
                json: ["appId": Self.appId, "deviceToken": Harness.token("device-fresh"), "subject": Self.subject("key", keyId)],
                apiKey: Harness.readWriteKey
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["found"] as? Bool == false)
            #expect(reply["bit0"] == nil)
            #expect(reply["bit1"] == nil)
            #expect(reply["lastUpdateTime"] == nil)
            let engine = try #require(api.engine)
            let stored = try #require(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .key, value: keyId)))
            #expect(!stored.found)
            #expect(stored.bit0 == nil)
        }
    }

    @Test("validate answers valid, stores nothing; an environment the app refuses is 422", arguments: ServerBackend.available)
    func validate(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, fake in
            let reply = try await api.post(
                "/v1/devicecheck/validate",
                json: ["appId": Self.appId, "deviceToken": Harness.token("device-validate"), "environment": "development"],
                apiKey: Harness.readOnlyKey
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["valid"] as? Bool == true)
            #expect(reply["environment"] as? String == "development")
            #expect(reply["appId"] as? String == Self.appId)
            let refused = try await api.post(
                "/v1/devicecheck/validate",
                json: ["appId": ServerHarness.productionOnlyAppId, "deviceToken": Harness.token("device-validate"), "environment": "development"],
                apiKey: Harness.readOnlyKey
            )
            #expect(refused.status == 422)
            #expect(refused.errorCode == "environment_not_allowed")
            #expect(fake.state.stats.deviceCheckRequests == 1)
        }
    }

    @Test("scopes and app access", arguments: ServerBackend.available)
    func scopesAndApps(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, fake in
            let token = Harness.token("device-scopes")
            let update: [String: Any] = ["appId": Self.appId, "deviceToken": token, "subject": Self.subject("device", "d-1"), "bit0": true]
            let readOnly = try await api.post("/v1/devicecheck/update", json: update, apiKey: Harness.readOnlyKey)
            #expect(readOnly.status == 403)
            #expect(readOnly.errorCode == "forbidden")
            let verifyOnly = try await api.post("/v1/devicecheck/query", json: update, apiKey: ServerHarness.apiKey)
            #expect(verifyOnly.status == 403)
            #expect(try await api.post("/v1/devicecheck/validate", json: ["appId": Self.appId, "deviceToken": token], apiKey: ServerHarness.apiKey).status == 403)
            #expect(try await api.post("/v1/devicecheck/query", json: update, apiKey: nil).status == 401)
            let otherApp = try await api.post("/v1/devicecheck/update", json: update, apiKey: Harness.narrowKey)
            #expect(otherApp.status == 403)
            #expect(otherApp.errorCode == "forbidden")
            var unknown = update
            unknown["appId"] = "ZZZZZ99999.com.example.unknown"
            let missing = try await api.post("/v1/devicecheck/update", json: unknown, apiKey: Harness.readWriteKey)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "app_not_found")
            #expect(fake.state.stats.deviceCheckRequests == 0)
            // The narrow key may use its own app; the reader may query and validate.
            var own = update
            own["appId"] = ServerHarness.productionOnlyAppId
            #expect(try await api.post("/v1/devicecheck/update", json: own, apiKey: Harness.narrowKey).status == 200)
            own["bit0"] = nil
            #expect(try await api.post("/v1/devicecheck/query", json: own, apiKey: Harness.readOnlyKey).status == 200)
            #expect(try await api.post("/v1/devicecheck/validate", json: ["appId": Self.appId, "deviceToken": token], apiKey: Harness.readOnlyKey).status == 200)
        }
    }

    /// A fault of the fake Apple, the code it maps to, our status, and whether `Retry-After` is sent.
    struct AppleFailureCase: Sendable, CustomTestStringConvertible {
        var faults: FakeAppleFaults
        var code: String
        var status: Int
        var retryAfter: Bool
        var testDescription: String { code + " \(faults.forcedStatus.map(String.init) ?? "fault")" }
    }

    static let appleFailures: [AppleFailureCase] = [
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 400), code: "devicecheck_bad_request", status: 422, retryAfter: false),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 401), code: "devicecheck_unauthorized", status: 502, retryAfter: false),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 403), code: "devicecheck_forbidden", status: 502, retryAfter: false),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 405), code: "devicecheck_method_not_allowed", status: 502, retryAfter: false),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 500), code: "devicecheck_server_error", status: 503, retryAfter: true),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 503), code: "devicecheck_server_error", status: 503, retryAfter: true),
        AppleFailureCase(faults: FakeAppleFaults(forcedStatus: 418), code: "devicecheck_unexpected_response", status: 502, retryAfter: false),
        AppleFailureCase(faults: FakeAppleFaults(throttleRate: 1), code: "devicecheck_throttled", status: 429, retryAfter: true),
        AppleFailureCase(faults: FakeAppleFaults(dropRate: 1), code: "devicecheck_connection_failed", status: 503, retryAfter: true),
    ]

    @Test("each Apple failure maps to its code and status; nothing is stored", arguments: ServerBackend.available, appleFailures)
    func appleFailure(backend: ServerBackend, failure: AppleFailureCase) async throws {
        try await Harness.run(backend, faults: failure.faults) { api, _ in
            let token = Harness.token("device-failing")
            let bodies: [(String, [String: Any])] = [
                ("query", ["appId": Self.appId, "deviceToken": token, "subject": Self.subject("user", "u-fail")]),
                ("update", ["appId": Self.appId, "deviceToken": token, "subject": Self.subject("user", "u-fail"), "bit1": true]),
                ("validate", ["appId": Self.appId, "deviceToken": token]),
            ]
            for (operation, body) in bodies {
                let reply = try await api.post("/v1/devicecheck/\(operation)", json: body, apiKey: Harness.readWriteKey)
                #expect(reply.status == failure.status, "\(operation): \(reply.text)")
                #expect(reply.errorCode == failure.code, "\(operation)")
                #expect((reply.headers[.retryAfter] != nil) == failure.retryAfter, "\(operation)")
                #expect(!reply.text.contains(token), "\(operation)")
            }
            let engine = try #require(api.engine)
            #expect(try await engine.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .user, value: "u-fail")) == nil)
        }
    }

    @Test("no Apple credentials: 503 devicecheck_unavailable", arguments: ServerBackend.available)
    func unavailable(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: Harness.environment()) { api in
            let token = Harness.token("device-nowhere")
            let bodies: [(String, [String: Any])] = [
                ("query", ["appId": Self.appId, "deviceToken": token, "subject": Self.subject("user", "u-1")]),
                ("update", ["appId": Self.appId, "deviceToken": token, "subject": Self.subject("user", "u-1"), "bit0": false]),
                ("validate", ["appId": Self.appId, "deviceToken": token]),
            ]
            for (operation, body) in bodies {
                let reply = try await api.post("/v1/devicecheck/\(operation)", json: body, apiKey: Harness.readWriteKey)
                #expect(reply.status == 503, "\(operation): \(reply.text)")
                #expect(reply.errorCode == "devicecheck_unavailable", "\(operation)")
            }
            // Malformed input is still a 400 first.
            let malformed = try await api.post("/v1/devicecheck/validate", json: ["appId": Self.appId, "deviceToken": "%%%"], apiKey: Harness.readWriteKey)
            #expect(malformed.status == 400)
        }
    }

    @Test(
        "malformed bodies: 400 with the field's code, Apple never asked",
        arguments: [
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","subject":{"kind":"user","id":"u"}}"#, "missing_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl"}"#, "missing_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"phone","id":"u"}}"#, "invalid_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"user","id":""}}"#, "missing_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"key","id":"not-a-key"}}"#, "invalid_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"not base64!","subject":{"kind":"user","id":"u"}}"#, "malformed_base64"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"","subject":{"kind":"user","id":"u"}}"#, "missing_field"),
            ("query", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"user","id":"u"},"environment":"staging"}"#, "invalid_field"),
            ("update", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"user","id":"u"}}"#, "missing_field"),
            ("update", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"user","id":"u"},"bit0":"yes"}"#, "invalid_field"),
            ("update", #"{"appId":"ABCDE12345.com.example.attestguard","deviceToken":"ZGV2aWNl","subject":{"kind":"user","id":"u"},"bit0":null}"#, "invalid_field"),
            ("validate", #"{"appId":"ABCDE12345.com.example.attestguard"}"#, "missing_field"),
            ("validate", "[1,2]", "invalid_field"),
            ("validate", "{", "malformed_json"),
        ]
    )
    func malformed(operation: String, body: String, code: String) async throws {
        try await Harness.run(.sqlite) { api, fake in
            let reply = try await api.send(.post, "/v1/devicecheck/\(operation)", body: Data(body.utf8), apiKey: Harness.readWriteKey)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.errorCode == code, "\(reply.text)")
            #expect(fake.state.stats.deviceCheckRequests == 0)
        }
    }

    @Test("an over-long device token or subject id is refused before Apple", arguments: ServerBackend.available)
    func bounds(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, fake in
            let long = String(repeating: "A", count: 4_100)
            let tooLong = try await api.post(
                "/v1/devicecheck/validate", json: ["appId": Self.appId, "deviceToken": long], apiKey: Harness.readWriteKey
            )
            #expect(tooLong.status == 400)
            #expect(tooLong.errorCode == "invalid_field")
            #expect(!tooLong.text.contains(long))
            let longId = try await api.post(
                "/v1/devicecheck/query",
                json: ["appId": Self.appId, "deviceToken": Harness.token("d"), "subject": Self.subject("user", String(repeating: "u", count: 257))],
                apiKey: Harness.readWriteKey
            )
            #expect(longId.status == 400)
            #expect(longId.errorCode == "invalid_field")
            #expect(fake.state.stats.deviceCheckRequests == 0)
        }
    }

    @Test("the device token is never written to the database file")
    func tokenNeverStored() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-devicecheck-\(UUID().uuidString).sqlite").path
        let token = Harness.token("device-secret-token-\(UUID().uuidString)")
        try await Harness.run(.sqlite, sqlitePath: path) { api, _ in
            let subject = Self.subject("device", "vendor-id-1")
            #expect(try await api.post("/v1/devicecheck/update", json: ["appId": Self.appId, "deviceToken": token, "subject": subject, "bit0": true, "bit1": true], apiKey: Harness.readWriteKey).status == 200)
            #expect(try await api.post("/v1/devicecheck/query", json: ["appId": Self.appId, "deviceToken": token, "subject": subject], apiKey: Harness.readWriteKey).status == 200)
            let stored = try #require(try await api.engine?.deviceCheck.storedBits(appId: Self.appId, subject: DeviceCheckSubject(kind: .device, value: "vendor-id-1")))
            #expect(stored.bit0 == true && stored.bit1 == true)
            let files = SQLiteRiskStore.files(at: path)
            let contents = files.compactMap { FileManager.default.contents(atPath: $0) }
            #expect(!contents.isEmpty)
            let needle = Data(token.utf8)
            let decoded = Data("device-secret-token".utf8)
            #expect(contents.allSatisfy { $0.range(of: needle) == nil && $0.range(of: decoded) == nil })
            #expect(contents.contains { $0.range(of: Data("vendor-id-1".utf8)) != nil })
        }
        for file in SQLiteRiskStore.files(at: path) { try? FileManager.default.removeItem(atPath: file) }
    }
}
