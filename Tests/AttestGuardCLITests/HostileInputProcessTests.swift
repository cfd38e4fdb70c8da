import Foundation
import Testing

/// Hostile input over raw TCP to a live `attestguard serve` (the in-process router skips the HTTP parser): seven
/// families of generated requests from one fixed seed. No answer is a 5xx; every answer with a body is a typed JSON
/// error or a JSON success; `/healthz` answers after each family; the log has no error-level line.
@Suite("attestguard serve: hostile input over raw TCP (process)", .serialized)
struct HostileInputProcessTests {
    static let seed: UInt64 = 0x4057_11E5

    /// What the server answered to one request that breaks the rules; `nil` when it did.
    static func problem(with answer: [UInt8], to request: [UInt8]) -> String? {
        // Several answers are right when a lying length leaves bytes that HTTP reads as a further request.
        for response in RawResponse.all(in: answer) {
            let text = String(decoding: response.body.prefix(300), as: UTF8.self)
            // The one 5xx the contract names: a gateway's own API key failing on the gateway's routes.
            let gatewayKeyFault = response.status == 500 && text.contains("\"gateway_unauthorized\"")
            if response.status >= 500, !gatewayKeyFault { return "\(response.status): \(text)" }
            if (100..<200).contains(response.status) { continue }
            // Every answer, the parser's refusals included, names its request.
            if response.header("x-request-id")?.isEmpty ?? true { return "\(response.status) without X-Request-Id: \(text)" }
            // An error answer always has a body (`{"error": {"code", "message"}}`) but to CONNECT, whose answers
            // swift-nio frames without one; a success may have none.
            if response.body.isEmpty, response.status < 400 || request.starts(with: Array("CONNECT ".utf8)) { continue }
            guard let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
                return "\(response.status) with a body that is not a JSON object: \(text)"
            }
            if response.status >= 400 {
                let error = json["error"] as? [String: Any]
                if !(error?["code"] is String) || !(error?["message"] is String) {
                    return "\(response.status) without a typed error: \(text)"
                }
            }
        }
        return nil
    }

    /// Sends each request on a connection of its own (closing the sending side after it, so that an incomplete
    /// request ends at once) and returns the answers, two connections at a time, off the cooperative pool.
    /// How long a client waits for the server to answer and close; the server's own read timeouts are 2 s.
    static let clientTimeout = Duration.seconds(10)

    /// Sends each request on its own connection and collects the answers, with the longest any one exchange took.
    static func exchange(_ requests: [[UInt8]], port: Int) async -> (answers: [[UInt8]], slowest: Duration) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let answers = Answers(count: requests.count)
                DispatchQueue.concurrentPerform(iterations: requests.count) { index in
                    let started = ContinuousClock.now
                    guard let connection = try? RawConnection(port: port) else { return }
                    connection.send(requests[index])
                    connection.finishSending()
                    answers.set(index, connection.receive(timeout: clientTimeout), took: ContinuousClock.now - started)
                }
                continuation.resume(returning: (answers.values, answers.slowest))
            }
        }
    }

    @Test("framing, JSON syntax, types, lengths, encodings, members and headers: 2,090 requests over nine routes, no 5xx, typed errors only")
    func hostileFamilies() async throws {
        let server = try await ServerProcess(environment: ConnectionProcessTests.environment([
            "ATTESTGUARD_SERVER_HEADER_READ_TIMEOUT_SECONDS": "2", "ATTESTGUARD_SERVER_BODY_READ_TIMEOUT_SECONDS": "2",
        ].merging(HostileRequests.serverEnvironment) { $1 }))
        defer { server.stop() }
        var generator = HostileRequests(seed: Self.seed)
        let families: [(String, [[UInt8]])] = [
            ("framing", generator.framing(170)), ("JSON syntax", generator.jsonSyntax(320)), ("types", generator.types(320)),
            ("lengths", generator.lengths(320)), ("encodings", generator.encodings(320)), ("members", generator.members(320)),
            ("headers", generator.headers(320)),
        ]
        for (family, requests) in families {
            let (answers, slowest) = await Self.exchange(requests, port: server.port)
            // A stall shows as an exchange that ran into the client's timeout: the server answers or closes every
            // connection itself, at the latest when its 2 s read timeouts end. The total time depends on the machine.
            #expect(slowest < Self.clientTimeout - .seconds(1), "the \(family) family's slowest exchange took \(slowest)")
            var problems: [String] = []
            for (index, answer) in answers.enumerated() {
                if let problem = Self.problem(with: answer, to: requests[index]) {
                    problems.append("\(family) #\(index) \(String(decoding: requests[index].prefix(120), as: UTF8.self).debugDescription): \(problem)")
                }
            }
            #expect(problems.isEmpty, "\(problems.count) bad answers, first: \(problems.prefix(5))")
            let health = await ConnectionProcessTests.healthz(port: server.port, within: .seconds(10))
            #expect(health == 200, "/healthz after the \(family) family: \(String(describing: health))")
        }
        // A gateway key failing is logged at error (it is the gateway's misconfiguration); nothing else may be.
        let errors = server.errorLines.filter { !$0.contains("code=gateway_unauthorized") }
        #expect(errors.isEmpty, "error-level log lines: \(errors.prefix(5))")
    }
}

/// Answers collected from several threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [[UInt8]]
    private var longest = Duration.zero

    init(count: Int) { storage = Array(repeating: [], count: count) }

    func set(_ index: Int, _ value: [UInt8], took duration: Duration) {
        lock.withLock {
            storage[index] = value
            longest = max(longest, duration)
        }
    }

    var values: [[UInt8]] { lock.withLock { storage } }
    var slowest: Duration { lock.withLock { longest } }
}
