import AppleServices
import FakeApple
import AttestCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

struct DeviceCheckClientTests {
    typealias Harness = FakeAppleHarness

    /// A device token that names `device` in the fake (its base64).
    static func token(_ device: String) -> String { Base64Text.encode(Array(device.utf8)) }

    @Test func testUpdateThenQueryReturnsTheBits() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            let token = Self.token("device-bits")
            _ = try await client.update(deviceToken: token, bit0: true, bit1: nil, environment: .production).get()
            let first = await client.query(deviceToken: token, environment: .production)
            #expect(try first.get() == .bits(DeviceCheckBits(bit0: true, bit1: false, lastUpdateTime: "2026-11")))
            _ = try await client.update(deviceToken: token, bit0: nil, bit1: true, environment: .production).get()
            let second = await client.query(deviceToken: token, environment: .production)
            #expect(try second.get() == .bits(DeviceCheckBits(bit0: true, bit1: true, lastUpdateTime: "2026-11")))
            let device = FakeAppleServer.deviceIdentity(forToken: token)
            #expect(server.state.bits(forDevice: device)?.bit1 == true)
            #expect(server.state.stats.deviceCheckRequests == 4)
        }
    }

    @Test func testNeverSetDeviceIsNotFoundAndValidateSucceeds() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            #expect(try await client.query(deviceToken: Self.token("fresh"), environment: .production).get() == .notFound)
            _ = try await client.validate(deviceToken: Self.token("fresh"), environment: .development).get()
        }
    }

    @Test func testEmptyDeviceTokenIsABadRequest() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            let failure = await client.validate(deviceToken: "", environment: .production).failure
            #expect(failure?.code == .badRequest)
            #expect(failure?.status == 400)
            #expect(failure?.detail.contains("device token") == true)
        }
    }

    @Test(arguments: [
        #"{"device_token":"ZGV2aWNl","transaction_id":"t-1"}"#,
        #"{"device_token":"ZGV2aWNl","timestamp":1700000000000}"#,
        #"{"transaction_id":"t-1","timestamp":1700000000000}"#,
        #"{"device_token":"ZGV2aWNl","transaction_id":"t-1","timestamp":"soon"}"#,
        "not json",
    ])
    func testMissingOrBadFieldsAreBadRequests(body: String) async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let token = try await ProviderTokenSource(credentials: credentials, now: { Harness.now }).token()
            var request = URLRequest(url: try #require(URL(string: baseURL + DeviceCheckClient.Path.query)))
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(body.utf8)
            let (_, response) = try await URLSession.shared.dataShieldedFromCancellation(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            #expect(server.state.stats.badRequests == 1)
        }
    }

    @Test func testTokenFromAnotherKeyIsUnauthorized() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials)) { server, baseURL in
            let client = Harness.deviceCheckClient(try Harness.credentials(), baseURL: baseURL)
            #expect(await client.query(deviceToken: Self.token("x"), environment: .production).failure?.code == .unauthorized)
            #expect(server.state.stats.unauthorized == 1)
        }
    }

    @Test(arguments: [
        (403, DeviceCheckFailure.Code.forbidden),
        (405, .methodNotAllowed),
        (500, .serverError),
        (503, .serverError),
        (418, .unexpectedResponse),
    ])
    func testForcedStatusMapsToItsCode(status: Int, code: DeviceCheckFailure.Code) async throws {
        let credentials = try Harness.credentials()
        let faults = FakeAppleFaults(forcedStatus: status)
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: faults)) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            let failure = await client.update(deviceToken: Self.token("forced"), bit0: true, bit1: true, environment: .production).failure
            #expect(failure?.code == code)
            #expect(failure?.status == status)
            #expect(failure?.detail == "Injected status \(status)")
        }
    }

    @Test func testThrottledAndServerErrorFaults() async throws {
        let credentials = try Harness.credentials()
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: FakeAppleFaults(throttleRate: 1))) { server, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            #expect(await client.query(deviceToken: Self.token("t"), environment: .production).failure?.code == .throttled)
            #expect(server.state.injectedFailures(.throttled) == 1)
        }
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: FakeAppleFaults(serverErrorRate: 1))) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            #expect(await client.validate(deviceToken: Self.token("t"), environment: .production).failure?.code == .serverError)
        }
    }

    @Test func testTimeoutAndDroppedConnection() async throws {
        let credentials = try Harness.credentials()
        let slow = FakeAppleFaults(slowRate: 1, slowDelay: .seconds(60))
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: slow)) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL, timeout: .milliseconds(300))
            #expect(await client.query(deviceToken: Self.token("slow"), environment: .production).failure?.code == .timedOut)
        }
        try await Harness.withFake(Harness.configuration(credentials: credentials, faults: FakeAppleFaults(dropRate: 1))) { _, baseURL in
            let client = Harness.deviceCheckClient(credentials, baseURL: baseURL)
            #expect(await client.query(deviceToken: Self.token("drop"), environment: .production).failure?.code == .connectionFailed)
        }
    }

    @Test func testQueryAnswerParsing() throws {
        #expect(try DeviceCheckClient.queryAnswer(Array("  bit state not found\n".utf8)).get() == .notFound)
        let json = #"{"bit0":false,"bit1":true,"last_update_time":"2025-02"}"#
        #expect(try DeviceCheckClient.queryAnswer(Array(json.utf8)).get() == .bits(DeviceCheckBits(bit0: false, bit1: true, lastUpdateTime: "2025-02")))
        #expect(DeviceCheckClient.queryAnswer(Array("<html>".utf8)).failure?.code == .unexpectedResponse)
    }

    @Test func testFailureDetailIsTruncated() {
        let failure = DeviceCheckClient.failure(status: 400, body: Array(String(repeating: "x", count: 1000).utf8))
        #expect(failure.code == .badRequest)
        #expect(failure.detail.count <= 201)
        #expect(DeviceCheckClient.failure(status: 401, body: []).code == .unauthorized)
        #expect(DeviceCheckClient.failure(status: 429, body: []).code == .throttled)
    }
}

extension Result {
    /// The failure, when there is one.
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
