public import AsyncHTTPClient
import Foundation
import NIOCore

/// The fake Apple's loopback control route: `POST /fake/risk-metric` sets the risk metric every later redemption of
/// a key's receipts carries, which is how the farm persona becomes a farm.
public struct FakeAppleControl: Sendable {
    private struct Body: Encodable {
        var keyId: String
        var riskMetric: Int
    }

    public let baseURL: String
    let client: HTTPClient

    public init(baseURL: String, client: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
    }

    /// Sets `riskMetric` for the key (standard base64 key id); throws unless the fake answers 200.
    public func setRiskMetric(_ riskMetric: Int, forKey keyId: String) async throws {
        var request = HTTPClientRequest(url: baseURL + "/fake/risk-metric")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(Body(keyId: keyId, riskMetric: riskMetric))))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 << 10)
        guard response.status.code == 200 else {
            throw FakeAppleControlError(description: "the fake Apple at \(baseURL) answered \(response.status.code): \(String(buffer: body))")
        }
    }
}

/// The fake Apple refused or could not take a control request.
struct FakeAppleControlError: Error, CustomStringConvertible {
    let description: String
}
