import AppleServices
import AttestCore
import Foundation
import Hummingbird

/// DeviceCheck's three paths, with each device's bits in ``FakeAppleState``.
///
/// In order: provider token as `Bearer` (401), a JSON ``DeviceCheckRequestBody`` with a non-empty device token
/// and transaction id and a positive timestamp (400), injected faults, then the operation. A device is named by
/// ``FakeAppleServer/deviceIdentity(forToken:)``.
struct FakeAppleDeviceCheckEndpoint: Sendable {
    /// Which DeviceCheck operation a path names.
    enum Operation: String, Sendable {
        case query
        case update
        case validate
    }

    let configuration: FakeAppleConfiguration
    let state: FakeAppleState
    let authenticator: FakeAppleAuthenticator
    let injector: FakeAppleFaultInjector

    static let maximumBodySize = 64 * 1024

    func handle(_ operation: Operation, _ request: Request, context: FakeAppleRequestContext) async throws -> Response {
        state.update {
            $0.totalRequests += 1
            $0.deviceCheckRequests += 1
        }
        if let failure = await authenticator.failure(authorization: request.headers[.authorization], scheme: .bearer) {
            state.update { $0.unauthorized += 1 }
            return FakeAppleResponses.text(401, "Unable to verify authorization token: \(failure)")
        }
        let body: DeviceCheckRequestBody
        switch await Self.body(of: request) {
        case .failure(let reason):
            state.update { $0.badRequests += 1 }
            return FakeAppleResponses.text(400, reason.text)
        case .success(let decoded):
            body = decoded
        }
        let device = FakeAppleServer.deviceIdentity(forToken: body.deviceToken)
        if let injected = try await injector.intercept(key: "devicecheck:\(device)", context: context) {
            return injected
        }
        switch operation {
        case .validate:
            return FakeAppleResponses.empty(200)
        case .update:
            state.updateBits(forDevice: device, bit0: body.bit0, bit1: body.bit1, month: Self.month(of: configuration.now()))
            return FakeAppleResponses.empty(200)
        case .query:
            guard let bits = state.bits(forDevice: device) else {
                return FakeAppleResponses.text(200, DeviceCheckQueryResponseBody.notFoundText)
            }
            let encoded = (try? JSONEncoder().encode(DeviceCheckQueryResponseBody(bits))).map(Array.init) ?? []
            return FakeAppleResponses.json(200, encoded)
        }
    }

    /// The decoded body, or the 400 text Apple would send.
    static func body(of request: Request) async -> Result<DeviceCheckRequestBody, DeviceCheckBodyProblem> {
        guard let buffer = try? await request.body.collect(upTo: maximumBodySize) else {
            return .failure(DeviceCheckBodyProblem("Missing or badly formatted payload"))
        }
        guard let body = try? JSONDecoder().decode(DeviceCheckRequestBody.self, from: Data(buffer: buffer)) else {
            return .failure(DeviceCheckBodyProblem("Missing or badly formatted payload"))
        }
        guard !body.deviceToken.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return .failure(DeviceCheckBodyProblem("Missing or incorrectly formatted device token payload"))
        }
        guard !body.transactionId.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return .failure(DeviceCheckBodyProblem("Missing or incorrectly formatted transaction id"))
        }
        guard body.timestamp > 0 else {
            return .failure(DeviceCheckBodyProblem("Missing or incorrectly formatted time stamp"))
        }
        return .success(body)
    }

    /// `YYYY-MM` of an instant in UTC, Apple's `last_update_time`.
    static func month(of instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: instant)
        return String(format: "%04d-%02d", parts.year ?? 1970, parts.month ?? 1)
    }
}

/// Why a DeviceCheck body was refused: the text of the 400 answer.
struct DeviceCheckBodyProblem: Error, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
}
