@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Foundation
import AttestTestSupport
import HTTPTypes
import Logging
import Testing

@Suite("HTTP: request ids and log metadata")
struct RequestLoggingTests {
    /// Lower-case, version 4, RFC 9562 variant.
    static func isNewId(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil
    }

    @Test("a new request id is a random lower-case version-4 UUID")
    func newIds() {
        let ids = (0..<2_000).map { _ in RequestId.make() }
        for id in ids { #expect(Self.isNewId(id), "\(id)") }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil })
        // Every random nibble varies: a byte-order slip would pin some to zero.
        let positions = Array(ids[0]).indices.filter { ![8, 13, 14, 18, 23].contains($0) }
        for position in positions {
            #expect(Set(ids.map { Array($0)[position] }).count > 1, "position \(position) never changes")
        }
    }

    /// Caller's ids that are not echoed or logged: too many bytes (one character of 60 kB among them), non-ASCII
    /// letters and digits, control characters, separators.
    static let refusedIds = [
        "", String(repeating: "x", count: 129), String(repeating: "x", count: 60_000), "a" + String(repeating: "\u{301}", count: 30_000),
        "café", "trace-٣", "ｉｄ", "a b", "a\nb", "a\u{0}b", "a\u{1B}[31m", "a\u{7F}b", "id;drop", "a/b", "a%20",
    ]

    @Test("a caller's id is kept only when it is 1-128 bytes of ASCII letters, digits, -, _, . or :")
    func callerIds() {
        #expect(RequestId.accepting("trace-42_a.b:7") == "trace-42_a.b:7")
        #expect(RequestId.accepting(String(repeating: "x", count: 128)) != nil)
        for bad in Self.refusedIds {
            #expect(RequestId.accepting(bad) == nil, "\(bad.prefix(40).debugDescription) (\(bad.utf8.count) bytes)")
        }
    }

    @Test("a huge, non-ASCII or control-character X-Request-Id is replaced by a new id in the answer and the log")
    func refusedOverHTTP() async throws {
        let recording = RecordingLogHandler.Recording()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recording: recording, level: .debug) }
        try await ServerHarness.run(.sqlite, requestLogger: logger) { api in
            for bad in Self.refusedIds.dropFirst() {
                let reply = try await api.send(.get, "/healthz", apiKey: nil, headers: [.xRequestId: bad])
                #expect(reply.status == 200)
                let echoed = try #require(reply.headers[.xRequestId])
                #expect(Self.isNewId(echoed), "\(bad.prefix(40).debugDescription) (\(bad.utf8.count) bytes) came back as \(echoed.prefix(40))")
            }
            let good = try await api.send(.get, "/healthz", apiKey: nil, headers: [.xRequestId: "gw:7f3a-1.b_2"])
            #expect(good.headers[.xRequestId] == "gw:7f3a-1.b_2")
        }
        let logged = recording.lines.filter { $0.event.message == "request" }
            .compactMap { ($0.event.metadata?["request_id"] ?? $0.handlerMetadata["request_id"]).map { "\($0)" } }
        #expect(logged.count == Self.refusedIds.count, "one request line each")
        #expect(logged.dropLast().allSatisfy(Self.isNewId))
        #expect(logged.last == "gw:7f3a-1.b_2")
    }

    @Test("responses carry the caller's X-Request-Id, or a new one per request")
    func overHTTP() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let first = try await api.send(.get, "/healthz", apiKey: nil)
            let second = try await api.send(.get, "/healthz", apiKey: nil)
            let firstId = try #require(first.headers[.xRequestId])
            #expect(Self.isNewId(firstId))
            #expect(second.headers[.xRequestId] != firstId)
            let traced = try await api.send(.get, "/healthz", apiKey: nil, headers: [.xRequestId: "gw-7f3a.1"])
            #expect(traced.headers[.xRequestId] == "gw-7f3a.1")
            let unsafe = try await api.send(.get, "/healthz", apiKey: nil, headers: [.xRequestId: "x y"])
            #expect(unsafe.headers[.xRequestId].map(Self.isNewId) == true)
        }
    }

    @Test("the access log: a line per request with route, status, duration, API key name and trace id, one request id")
    func accessLog() async throws {
        let recording = RecordingLogHandler.Recording()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recording: recording, level: .info) }
        try await ServerHarness.run(.sqlite, requestLogger: logger) { api in
            let traceparent = HTTPField.Name("traceparent")!
            _ = try await api.send(.get, "/healthz", apiKey: nil, headers: [traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"])
            #expect(try await api.send(.post, "/v1/challenges", body: Data("{}".utf8)).status == 400)
        }
        let requests = recording.lines.filter { $0.event.message == "request" }
        #expect(requests.count == 2)
        func field(_ line: RecordingLogHandler.Recording.Line, _ key: String) -> String? {
            (line.event.metadata?[key] ?? line.handlerMetadata[key]).map { "\($0)" }
        }
        let healthz = try #require(requests.first)
        #expect(healthz.event.level == .info)
        #expect(field(healthz, "route") == "/healthz")
        #expect(field(healthz, "status") == "200")
        #expect(field(healthz, "trace_id") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(field(healthz, "duration_ms")?.wholeMatch(of: /\d+\.\d{3}/) != nil)
        #expect(field(healthz, "hb.request.id") == nil)
        let refused = try #require(requests.last)
        #expect(field(refused, "api_key") == "gateway")
        #expect(field(refused, "code") == "missing_field")
        #expect(field(refused, "route") == "/v1/challenges")
    }

    @Test("with successPercent 0 only error answers get an access log line")
    func accessLogSampling() async throws {
        let recording = RecordingLogHandler.Recording()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recording: recording, level: .info) }
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_ACCESS_LOG_SUCCESS_PERCENT": "0"], requestLogger: logger) { api in
            for _ in 0..<20 {
                let reply = try await api.send(.get, "/healthz", apiKey: nil)
                #expect(reply.status == 200)
            }
            let missing = try await api.send(.get, "/no-such-route", apiKey: nil)
            #expect(missing.status == 404)
        }
        let requests = recording.lines.filter { $0.event.message == "request" }
        #expect(requests.count == 1)
    }

    @Test("a sampled access log writes about its share of successful answers, in no fixed pattern")
    func sampledShare() {
        for percent in [1, 10, 50, 99] {
            let picks = (0..<20_000).map { _ in AccessLogSample.picks(percent: percent) }
            let share = Double(picks.filter { $0 }.count) / Double(picks.count) * 100
            // 20,000 fair draws land within 3 points of any share (more than eight standard deviations); a stuck or
            // periodic pick lands far outside.
            #expect(abs(share - Double(percent)) < 3, "\(percent) %: \(share) %")
            // Not every hundredth request: among the 200 picks of one residue modulo 100, a share of 10 or 50 % has
            // both outcomes (a fair draw misses one of them with a chance below one in a billion).
            guard percent == 10 || percent == 50 else { continue }
            let sameResidue = stride(from: 7, to: picks.count, by: 100).map { picks[$0] }
            #expect(sameResidue.contains(true) && sameResidue.contains(false), "\(percent) %: residue 7 always the same")
        }
        // Consecutive numbers give distinct values: no two of the first 100,000 collide.
        #expect(Set((0..<100_000 as Range<UInt64>).map { HashedCounter.hash($0, half: 0) }).count == 100_000)
    }
}
