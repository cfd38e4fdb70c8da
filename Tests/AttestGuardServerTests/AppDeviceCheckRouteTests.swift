import FakeApple
import Foundation
import HTTPTypes
import Testing

/// `POST /v1/app/devicecheck`: the app validates its device with DeviceCheck once a session, through its gateway; the
/// user's validation is recorded for the rules (`devicecheck.validated_at`, `devicecheck.validated_age`), never the
/// token.
@Suite("HTTP: app-facing DeviceCheck")
struct AppDeviceCheckRouteTests {
    static let path = "/v1/app/devicecheck"
    static let headers = AppFacingRouteTests.gatewayHeaders(target: "/attestguard/devicecheck")
    static let validatedAge = "devicecheck.validated_age"

    /// Reviews a user whose device has not validated in the last day; the harness's policy refuses reviews of
    /// `GET /api/profile`.
    static let rules = """
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: device-not-validated
            when: missing(devicecheck.validated_age) or devicecheck.validated_age > 1d
            score: 60
            reason: "the device has not validated with DeviceCheck in a day"

        """

    /// Runs `body` against a server with the gateway harness's policy, ``rules`` and a fake Apple with `faults`.
    static func run(_ backend: ServerBackend, faults: FakeAppleFaults = .none, _ body: @escaping @Sendable (APIClient, FakeAppleServer) async throws -> Void) async throws {
        try await ForwardAuthHarness.withDirectories(rules: rules) { policies, rules in
            try await DeviceCheckHarness.run(backend, faults: faults, extraEnvironment: ForwardAuthHarness.environment(policies: policies, rules: rules), body)
        }
    }

    static func score(_ api: APIClient, user: String) async throws -> APIClient.Reply {
        let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": user])
        #expect(reply.status == 200, "\(reply.text)")
        return reply
    }

    static func age(_ reply: APIClient.Reply) -> Any? { (reply["signals"] as? [String: Any])?[validatedAge] }

    @Test("validates with Apple, records the gateway's user whatever the body claims; the rules read it", arguments: ServerBackend.available)
    func validated(backend: ServerBackend) async throws {
        try await Self.run(backend) { api, fake in
            let before = try await Self.score(api, user: "alice")
            #expect(Self.age(before) is NSNull, "never validated: missing")
            #expect(before["decision"] as? String == "review")
            let profile = GatewayAsk(method: "GET", target: "/api/profile", body: Data())
            #expect(try await api.forwardAuth(profile).header("X-AttestGuard-Error") == "request_denied")

            let token = DeviceCheckHarness.token("alice-phone-session")
            let body: [String: Any] = ["deviceToken": token, "userId": "mallory", "appId": "ABCDE12345.com.example.other"]
            let reply = try await AppFacingRouteTests.post(api, Self.path, body, headers: Self.headers)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Set(reply.json.keys) == ["valid", "validatedAt"])
            #expect(reply["valid"] as? Bool == true)
            #expect(reply["validatedAt"] as? String == "2026-11-22T12:00:00.000Z")
            #expect(!reply.text.contains(token))
            #expect(fake.state.stats.deviceCheckRequests == 1)

            api.clock.advance(by: 90)
            let after = try await Self.score(api, user: "alice")
            #expect(Self.age(after) as? Double == 90)
            #expect(after["decision"] as? String == "allow")
            #expect(Self.age(try await Self.score(api, user: "mallory")) is NSNull, "the body's user is not read")
            let passed = try await api.forwardAuth(profile)
            #expect(passed.status == 200 && passed.header("X-AttestGuard-Status") == "200", "\(passed.text)")

            // The next session validates again: Apple is asked every time, and the latest instant is kept.
            api.clock.advance(by: 3_600)
            let again = try await AppFacingRouteTests.post(api, Self.path, ["deviceToken": token], headers: Self.headers)
            #expect(again["validatedAt"] as? String == "2026-11-22T13:01:30.000Z")
            #expect(fake.state.stats.deviceCheckRequests == 2)
            #expect(Self.age(try await Self.score(api, user: "alice")) as? Double == 0)

            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            #expect(metrics.text.contains(#"operation="validate_session",result="valid""#), "\(metrics.text.split(separator: "\n").filter { $0.contains("devicecheck") })")
        }
    }

    @Test("the gateway's user and key are required, the token is checked before Apple is asked")
    func refusals() async throws {
        try await Self.run(.sqlite) { api, fake in
            let token = DeviceCheckHarness.token("device")
            let userless = try await AppFacingRouteTests.post(api, Self.path, ["deviceToken": token], headers: AppFacingRouteTests.gatewayHeaders(user: nil, target: "/attestguard/devicecheck"))
            #expect(userless.status == 403 && userless.errorCode == "user_missing")
            let keyless = try await AppFacingRouteTests.post(api, Self.path, ["deviceToken": token], headers: AppFacingRouteTests.gatewayHeaders(target: "/attestguard/devicecheck", apiKey: nil))
            #expect(keyless.status == 500 && keyless.errorCode == "gateway_unauthorized")
            let cases: [([String: Any], String)] = [
                ([:], "missing_field"),
                (["deviceToken": ""], "missing_field"),
                (["deviceToken": 12], "invalid_field"),
                (["deviceToken": "not base64!"], "malformed_base64"),
                (["deviceToken": String(repeating: "A", count: 4_100)], "invalid_field"),
            ]
            for (body, code) in cases {
                let reply = try await AppFacingRouteTests.post(api, Self.path, body, headers: Self.headers)
                #expect(reply.status == 400 && reply.errorCode == code, "\(body.keys.sorted()): \(reply.text.prefix(200))")
            }
            #expect(fake.state.stats.deviceCheckRequests == 0)
            #expect(try await api.engine?.store.deviceCheckValidation(appId: ServerHarness.appId, userId: "alice") == nil)
        }
    }

    @Test("each Apple failure keeps its DeviceCheck code and status; nothing is recorded", arguments: DeviceCheckRouteTests.appleFailures)
    func appleFailure(failure: DeviceCheckRouteTests.AppleFailureCase) async throws {
        try await Self.run(.sqlite, faults: failure.faults) { api, _ in
            let token = DeviceCheckHarness.token("device-failing")
            let reply = try await AppFacingRouteTests.post(api, Self.path, ["deviceToken": token], headers: Self.headers)
            #expect(reply.status == failure.status && reply.errorCode == failure.code, "\(reply.text)")
            #expect((reply.headers[.retryAfter] != nil) == failure.retryAfter)
            #expect(!reply.text.contains(token))
            #expect(Self.age(try await Self.score(api, user: "alice")) is NSNull)
        }
    }

    @Test("no Apple credentials: 503 devicecheck_unavailable")
    func unavailable() async throws {
        try await ForwardAuthHarness.run(.sqlite) { api, _ in
            let reply = try await AppFacingRouteTests.post(api, Self.path, ["deviceToken": DeviceCheckHarness.token("device")], headers: Self.headers)
            #expect(reply.status == 503 && reply.errorCode == "devicecheck_unavailable", "\(reply.text)")
        }
    }
}
