import AttestCore
import DeviceSimulator
import Foundation
import Hummingbird

/// `POST /fake/risk-metric` `{"keyId": "<standard base64>", "riskMetric": 14}`: sets the risk metric every later
/// redemption of that key's receipts carries (the demo and `simulate traffic` turn a device into a farm this way).
/// Answers 200 `{"keyId", "token", "riskMetric"}`, or 400 with a line of text for a body it cannot use.
///
/// The key id is enough: Apple's receipt token for a simulated key depends on the simulator PKI and the key id only
/// (``SimulatedDevice/token(for:)``). The fake listens on loopback by default; the route changes nothing outside it.
struct FakeAppleRiskMetricControl: Sendable {
    private struct Body: Codable {
        var keyId: String
        var riskMetric: Int
    }

    private struct Answer: Encodable {
        var keyId: String
        var token: String
        var riskMetric: Int
    }

    let configuration: FakeAppleConfiguration
    let state: FakeAppleState

    func handle(_ request: Request) async throws -> Response {
        guard let buffer = try? await request.body.collect(upTo: 4_096),
            let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        else {
            return FakeAppleResponses.text(400, #"send {"keyId": "<standard base64>", "riskMetric": <0-1000000>}"#)
        }
        guard let keyId = Base64Text.decodeEither(body.keyId), keyId.count == 32 else {
            return FakeAppleResponses.text(400, "keyId must be the standard base64 of a 32-byte key id")
        }
        guard (0...1_000_000).contains(body.riskMetric) else {
            return FakeAppleResponses.text(400, "riskMetric must be between 0 and 1000000")
        }
        let token = SimulatedDevice(pki: configuration.pki).token(for: Array(keyId))
        state.setRiskMetric(body.riskMetric, forToken: token)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let answer = try encoder.encode(Answer(keyId: body.keyId, token: token, riskMetric: body.riskMetric))
        return FakeAppleResponses.json(200, Array(answer))
    }
}
