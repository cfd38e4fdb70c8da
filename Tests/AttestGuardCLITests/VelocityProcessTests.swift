import AttestTestSupport
import Foundation
import Testing

/// Velocity across two `attestguard serve` processes on one PostgreSQL: each counts its own events at once and
/// the other's after their next flush (every second), never one twice, with requests racing in both.
@Suite("Velocity across server processes", .serialized)
struct VelocityProcessTests {
    static let rules = """
        version: 1
        rules:
          - id: busy-user
            when: velocity.score_requests.user.1m >= 1000 or velocity.score_requests.ip.1h >= 1000
            score: 10
        """

    static func score(_ server: ServerProcess, user: String, ip: String) async throws -> (user: Int, ip: Int) {
        let reply = try await server.post("v1/score", ["appId": "ABCDE12345.com.example.attestguard", "userId": user, "ip": ip, "action": "purchase"])
        #expect(reply.status == 200, "\(reply.json)")
        let signals = try #require(reply.json["signals"] as? [String: Any], "\(reply.json)")
        let user = try #require(signals["velocity.score_requests.user.1m"] as? Double)
        let ip = try #require(signals["velocity.score_requests.ip.1h"] as? Double)
        return (Int(user), Int(ip))
    }

    @Test("score requests counted in two processes add up in both, exactly", .enabled(if: TestPostgres.isEnabled))
    func twoProcesses() async throws {
        let url = try await TestPostgres.freshSchemaURL(prefix: "v")
        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-velocity-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try Self.rules.write(to: rules.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: rules) }
        var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        environment["ATTESTGUARD_RULES_DIRECTORY"] = rules.path
        let first = try await ServerProcess(environment: environment)
        let second = try await ServerProcess(environment: environment)
        defer { first.stop(); second.stop() }

        // 20 requests into one process and 15 into the other, all at once; the IP is shared with another user.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<35 {
                group.addTask {
                    let server = index < 20 ? first : second
                    _ = try await Self.score(server, user: index % 5 == 0 ? "wendy" : "vera", ip: "198.51.100.7")
                }
            }
            try await group.waitForAll()
        }
        // Probe both processes in turn: every probe is itself one more request of vera's (on the shared IP). A
        // count may lag while another process's flush is on its way, but never exceeds the truth (nothing counted
        // twice), and both processes reach the exact truth once the flushes are in (nothing lost). Probes are
        // 2.5 s apart, more than two flush intervals: each process flushes once a second on a phase of its own, so
        // a probe sooner after the other process's would race its flush, not test it.
        var sent = (user: 28, ip: 35)
        var exactInARow = 0
        let started = ContinuousClock.now
        while exactInARow < 2, ContinuousClock.now - started < .seconds(40) {
            try await Task.sleep(for: .milliseconds(2_500))
            let server = exactInARow == 0 ? first : second
            let seen = try await Self.score(server, user: "vera", ip: "198.51.100.7")
            sent = (sent.user + 1, sent.ip + 1)
            #expect(seen.user <= sent.user && seen.ip <= sent.ip, "counted twice: \(seen) of \(sent)")
            exactInARow = seen == sent ? exactInARow + 1 : 0
        }
        #expect(exactInARow == 2, "both processes count exactly \(sent) within 40 s")
        let wendy = try await Self.score(first, user: "wendy", ip: "198.51.100.8")
        #expect(wendy.user == 7 + 1, "wendy: 7 requests, and this one")
        #expect(wendy.ip == 1, "another IP")
    }
}
