import Foundation
import Testing

/// What swift-nio's HTTP/1.1 parser refuses, and a request without `Host`, answered in the API's error shape by a
/// real `attestguard serve` over raw TCP (the in-process router never sees the parser).
@Suite("attestguard serve: the parser's refusals (processes)", .serialized)
struct ParserRefusalProcessTests {
    static let post = "POST /v1/challenges HTTP/1.1\r\nHost: l\r\nAuthorization: Bearer \(ServerProcess.apiKey)\r\nContent-Type: application/json\r\n"

    /// Requests the parser or the framing check refuses, each with what it shows.
    static let refused: [(String, String)] = [
        ("Content-Length beside Transfer-Encoding", post + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}"),
        ("two Content-Lengths", post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
        ("an obs-fold line", "GET /healthz HTTP/1.1\r\nHost: l\r\nX-Folded: a\r\n  b\r\n\r\n"),
        ("bare LF line ends", "GET /healthz HTTP/1.1\nHost: l\n\n"),
        ("more header fields than the limit", "GET /healthz HTTP/1.1\r\nHost: l\r\n" + String(repeating: "X-A: 1\r\n", count: 1_100) + "\r\n"),
        ("a space before the colon", "GET /healthz HTTP/1.1\r\nHost : l\r\n\r\n"),
        ("HTTP/1.1 without Host", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
        ("an empty Host", "GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n"),
    ]

    @Test("framing the parser refuses and HTTP/1.1 without Host: 400 malformed_request in JSON, with X-Request-Id, then close; HTTP/1.0 closes after its answer")
    func refusalsCarryTheErrorShape() async throws {
        let server = try await ServerProcess(environment: ConnectionProcessTests.environment())
        defer { server.stop() }
        for (name, request) in Self.refused {
            let connection = try RawConnection(port: server.port)
            connection.send(request)
            let bytes = await Self.receiveUntilClosed(connection)
            let responses = RawResponse.all(in: bytes)
            try #require(responses.count == 1, "\(name): \(responses.count) responses: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            Self.expectRefusal(responses[0], name)
        }
        // HTTP/1.0 has no Host to require (health checkers send it without one), and its connection closes after
        // the answer, as its client expects, not after the idle timeout.
        let old = try RawConnection(port: server.port)
        old.send("GET /healthz HTTP/1.0\r\n\r\n")
        let asked = ContinuousClock.now
        let answer = RawResponse(await Self.receiveUntilClosed(old))
        #expect(answer?.status == 200, "HTTP/1.0 without Host: \(String(describing: answer?.status))")
        #expect(ContinuousClock.now - asked < .seconds(8), "the HTTP/1.0 connection stayed open")
        #expect(await ConnectionProcessTests.healthz(port: server.port, within: .seconds(10)) == 200)
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
    }

    @Test("a broken request pipelined after a good one: the good one's answer first, then the refusal, in order")
    func pipelinedRefusalKeepsOrder() async throws {
        let server = try await ServerProcess(environment: ConnectionProcessTests.environment())
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /healthz HTTP/1.1\r\nHost: l\r\n\r\n" + Self.post + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")
        let bytes = await Self.receiveUntilClosed(connection)
        let responses = RawResponse.all(in: bytes)
        try #require(responses.count == 2, "\(String(decoding: bytes.prefix(600), as: UTF8.self))")
        #expect(responses[0].status == 200)
        Self.expectRefusal(responses[1], "pipelined")
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
    }

    @Test("a body that breaks after its request is answered unread: that one answer, then close, never a second")
    func brokenBodyOfAnAnsweredRequest() async throws {
        let server = try await ServerProcess(environment: ConnectionProcessTests.environment())
        defer { server.stop() }
        // No API key: refused before the body is read; the chunk size is not hexadecimal.
        let connection = try RawConnection(port: server.port)
        connection.send("POST /v1/challenges HTTP/1.1\r\nHost: l\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        let bytes = await Self.receiveUntilClosed(connection)
        let responses = RawResponse.all(in: bytes)
        #expect(responses.map(\.status) == [401], "\(String(decoding: bytes.prefix(600), as: UTF8.self))")
        #expect(responses.first?.header("x-request-id") != nil)
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
    }

    static func expectRefusal(_ response: RawResponse, _ name: String) {
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 400, "\(name): \(response.status) \(text)")
        #expect(response.header("content-type") == "application/json", "\(name)")
        #expect(response.header("connection") == "close", "\(name)")
        #expect(response.header("x-request-id").map { !$0.isEmpty } == true, "\(name): no X-Request-Id")
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let error = json?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "malformed_request", "\(name): \(text)")
        #expect((error?["message"] as? String)?.isEmpty == false, "\(name): \(text)")
    }

    /// Everything the server sends until it closes the connection (at most 10 s), off the cooperative pool.
    static func receiveUntilClosed(_ connection: RawConnection) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: connection.receive(timeout: .seconds(10))) }
        }
    }
}
