public import AsyncHTTPClient
import AttestCore
import Foundation
import NIOCore
import NIOHTTP1

/// A client of AttestGuard's public HTTP API, as a gateway or backend calls it: JSON bodies, the API key as a
/// bearer token, one timeout per request. Transport failures are thrown; every HTTP answer is returned.
public struct AttestGuardAPI: Sendable {
    /// The server's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    let apiKey: String
    let client: HTTPClient
    let timeout: Duration
    let tally: TrafficTally?

    public init(baseURL: String, apiKey: String, client: HTTPClient, timeout: Duration = .seconds(30), tally: TrafficTally? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        self.client = client
        self.timeout = timeout
        self.tally = tally
    }

    /// POSTs `body` (encoded as JSON, or sent as it is when it is already `Data`) to `path`.
    public func post(_ path: String, _ body: some Encodable & Sendable) async throws -> APIAnswer {
        let bytes: Data
        if let data = body as? Data {
            bytes = data
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            bytes = try encoder.encode(body)
        }
        return try await send(.POST, path, body: bytes)
    }

    /// The path of a key's route (`GET` reads it with its receipt): the key id, standard base64, as base64url.
    public static func keyPath(appId: String, keyId: String) -> String {
        "/v1/apps/\(appId)/keys/\(Base64Text.urlEncoded(Base64Text.decodeEither(keyId) ?? Data(keyId.utf8)))"
    }

    /// GETs `path`.
    public func get(_ path: String) async throws -> APIAnswer {
        try await send(.GET, path, body: nil)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?) async throws -> APIAnswer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.wholeNanoseconds)))
        let collected = try await response.body.collect(upTo: 4 << 20)
        await tally?.countRequest()
        return APIAnswer(
            status: Int(response.status.code), body: Data(collected.readableBytesView), requestId: response.headers.first(name: "X-Request-Id")
        )
    }
}
