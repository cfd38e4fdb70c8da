import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import Testing

/// DeviceCheck bits are filed per app unless the operator opts apps into sharing: an API key limited to one app
/// cannot change another app's verdicts, and a key subject must be a key of the app.
@Suite("HTTP: DeviceCheck bits per app")
struct DeviceCheckScopeTests {
    typealias Harness = DeviceCheckHarness
    static let user = DeviceCheckSubject(kind: .user, value: "user-shared")

    /// Sets bit 0 for `user-shared` through `appId` with `apiKey`.
    static func flag(_ api: APIClient, appId: String, apiKey: String) async throws -> APIClient.Reply {
        try await api.post(
            "/v1/devicecheck/update",
            json: ["appId": appId, "deviceToken": Harness.token("device-shared"), "subject": ["kind": "user", "id": Self.user.value], "bit0": true],
            apiKey: apiKey
        )
    }

    @Test("a key limited to app B sets bits that app A never reads", arguments: ServerBackend.available)
    func perApp(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, _ in
            let engine = try #require(api.engine)
            #expect(try await Self.flag(api, appId: ServerHarness.productionOnlyAppId, apiKey: Harness.narrowKey).status == 200)
            #expect(try await engine.deviceCheck.storedBits(appId: ServerHarness.productionOnlyAppId, subject: Self.user)?.bit0 == true)
            #expect(try await engine.deviceCheck.storedBits(appId: ServerHarness.appId, subject: Self.user) == nil)
            let verdict = try await engine.scorer.score(ScoreRequest(appId: ServerHarness.appId, userId: try Identifier(Self.user.value, field: "userId")))
            #expect(verdict.signals[FixedSignal.devicecheckBit0.rawValue] == .some(nil), "app A's rules see no bit")
        }
    }

    @Test("apps opted into sharing file and read one team's bits, and read the team rows stored before bits were per app",
          arguments: ServerBackend.available)
    func sharing(backend: ServerBackend) async throws {
        let sharing = ["ATTESTGUARD_APPS_MAIN_SHARE_DEVICE_CHECK_BITS": "true", "ATTESTGUARD_APPS_PROD_SHARE_DEVICE_CHECK_BITS": "true"]
        try await Harness.run(backend, extraEnvironment: sharing) { api, _ in
            let engine = try #require(api.engine)
            #expect(try await Self.flag(api, appId: ServerHarness.productionOnlyAppId, apiKey: Harness.narrowKey).status == 200)
            #expect(try await engine.deviceCheck.storedBits(appId: ServerHarness.appId, subject: Self.user)?.bit0 == true)

            let legacy = DeviceCheckSubject(kind: .device, value: "old-device")
            try await engine.store.storeDeviceCheckBits(DeviceCheckRecord(
                scope: .legacyTeam(teamId: Harness.teamId), environment: .production, subject: legacy, bit0: false, bit1: true, found: true,
                lastUpdateTime: "2026-10", observedAt: api.clock.now()
            ))
            #expect(try await engine.deviceCheck.storedBits(appId: ServerHarness.appId, subject: legacy)?.bit1 == true)
        }
        try await Harness.run(backend) { api, _ in
            let engine = try #require(api.engine)
            let legacy = DeviceCheckSubject(kind: .device, value: "old-device")
            try await engine.store.storeDeviceCheckBits(DeviceCheckRecord(
                scope: .legacyTeam(teamId: Harness.teamId), environment: .production, subject: legacy, bit0: false, bit1: true, found: true,
                lastUpdateTime: "2026-10", observedAt: api.clock.now()
            ))
            #expect(try await engine.deviceCheck.storedBits(appId: ServerHarness.appId, subject: legacy) == nil, "a per-app app ignores team rows")
        }
    }

    @Test("a key subject that is not a key of the app is 404 key_not_found", arguments: ServerBackend.available)
    func foreignKeySubject(backend: ServerBackend) async throws {
        try await Harness.run(backend) { api, _ in
            let app = SimulatedApps.make(user: "jack", device: "jack-phone")
            #expect(try await api.attest(app).status == 201)
            for (appId, keyId, apiKey) in [
                (ServerHarness.productionOnlyAppId, app.key.keyIdBase64, Harness.narrowKey),
                (ServerHarness.appId, Data(repeating: 9, count: 32).base64EncodedString(), Harness.readWriteKey),
            ] {
                let reply = try await api.post(
                    "/v1/devicecheck/update",
                    json: ["appId": appId, "deviceToken": Harness.token("device-x"), "subject": ["kind": "key", "id": keyId], "bit1": true],
                    apiKey: apiKey
                )
                #expect(reply.status == 404, "\(reply.text)")
                #expect(reply.errorCode == "key_not_found")
            }
        }
    }
}
