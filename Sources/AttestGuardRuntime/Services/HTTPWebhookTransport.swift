import AsyncHTTPClient
import AttestGuardEngine
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
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(10))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The whole attempt, connection to the answer's last byte read, ends by `timeout`: async-http-client's own
    /// deadline stops at the answer's head, so a receiver that sends a head and stalls would otherwise hold the
    /// attempt (and the claim's other events) past its lease.
    package func post(to url: URL, headers: [(name: String, value: String)], body: Data, timeout: Duration) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask { try await self.send(to: url, headers: headers, body: body, timeout: timeout) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw WebhookAttemptTimedOut(timeout: timeout)
            }
            defer { group.cancelAll() }
            guard let status = try await group.next() else { throw WebhookAttemptTimedOut(timeout: timeout) }
            return status
        }
    }

    private func send(to url: URL, headers: [(name: String, value: String)], body: Data, timeout: Duration) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "user-agent", value: "AttestGuard-Webhooks/1")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .milliseconds(Self.milliseconds(timeout)))
        // The answer's body means nothing to the delivery; it is read (bounded) so that the connection can be reused.
        _ = try? await response.body.collect(upTo: 16 * 1_024)
        return Int(response.status.code)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    package func shutdown() async {
        try? await client.shutdown()
    }
}

/// An attempt that did not end within the dispatcher's timeout.
struct WebhookAttemptTimedOut: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no complete answer within \(HTTPWebhookTransport.milliseconds(timeout)) ms" }
}
