import EventLoopConcurrency
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What an Apple endpoint answered: the status, the headers and at most `maximumBodySize` bytes of body.
struct AppleHTTPResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    /// The body as text, trimmed and cut to `limit` characters, for failure details.
    func bodyText(limit: Int = 200) -> String {
        Self.text(body, limit: limit)
    }

    static func text(_ bytes: [UInt8], limit: Int = 200) -> String {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}

/// Why no HTTP answer arrived.
enum AppleHTTPTransportFailure: Error, Sendable {
    /// The deadline passed before the whole answer arrived.
    case timedOut
    /// The connection could not be made or broke.
    case connectionFailed(String)
}

/// Sends one POST to an Apple endpoint with one deadline for the whole exchange (head and body) and reads a
/// bounded body; every transport problem becomes an ``AppleHTTPTransportFailure`` value.
struct AppleHTTPExchange: Sendable {
    let client: HTTPClient
    let timeout: Duration
    let maximumBodySize: Int

    func post(url: String, headers: HTTPHeaders, body: [UInt8]) async -> Result<AppleHTTPResponse, AppleHTTPTransportFailure> {
        let request = Self.request(url: url, headers: headers, body: body)
        let deadline = NIODeadline.now() + TimeAmount.nanoseconds(timeout.wholeNanoseconds)
        let limit = maximumBodySize
        do {
            // The client's deadline covers the response head only; the outer one covers the body too.
            return .success(
                try await withDeadline(timeout, timeoutError: { AppleHTTPTransportFailure.timedOut }) {
                    let response = try await client.execute(request, deadline: deadline)
                    var collected: [UInt8] = []
                    for try await chunk in response.body {
                        let room = limit - collected.count
                        collected += chunk.readableBytesView.prefix(max(room, 0))
                        if collected.count >= limit { break }
                    }
                    return AppleHTTPResponse(status: Int(response.status.code), headers: response.headers, body: collected)
                }
            )
        } catch let failure as AppleHTTPTransportFailure {
            return .failure(failure)
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return .failure(.timedOut)
            default:
                return .failure(.connectionFailed(String(describing: error)))
            }
        } catch {
            return .failure(.connectionFailed(String(describing: error)))
        }
    }

    private static func request(url: String, headers: HTTPHeaders, body: [UInt8]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }
}
