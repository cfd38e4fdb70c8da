import AsyncHTTPClient
package import AttestGuardEngine
package import Foundation
import NIOCore

/// Posts webhook deliveries with an async-http-client of its own: redirects are not followed (a receiver that moved
/// answers 3xx, which is a failed attempt, rather than a `POST` turned into a `GET` somewhere else), a refused
/// connection fails the attempt at once, and at most a few kilobytes of a receiver's answer are read. ``shutdown()`` closes it.
package final class HTTPWebhookTransport: WebhookTransport {
    private let client: HTTPClient

    package init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        // A refused connection is a failed attempt at once, retried after the back-off, rather than a connection
        // retried until the request's timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    package func post(to url: URL, headers: [(name: String, value: String)], body: Data, timeout: Duration) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "user-agent", value: "AttestGuard-Webhooks/1")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let milliseconds = Int64(timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let response = try await client.execute(request, timeout: .milliseconds(milliseconds))
        // The answer's body means nothing to the delivery; it is read (bounded) so that the connection can be reused.
        _ = try? await response.body.collect(upTo: 16 * 1_024)
        return Int(response.status.code)
    }

    package func shutdown() async {
        try? await client.shutdown()
    }
}
