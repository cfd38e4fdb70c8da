import AttestTestSupport
import Foundation
import Testing

/// `GET /v1/admin/rules` across two `attestguard serve` processes on one PostgreSQL: either one lists both with the
/// rule set version each runs, and a rule edit reaches both (each watches its files) and shows in that list.
@Suite("Rule set versions across server processes", .serialized)
struct RuleProcessesTests {
    static func rules(score: Int) -> String {
        """
        version: 1
        rules:
          - id: no-key
            when: missing(key.status)
            score: \(score)
        """
    }

    static func processes(_ server: ServerProcess) async throws -> [[String: Any]] {
        let reply = try await server.send("GET", "v1/admin/rules")
        #expect(reply.status == 200, "\(reply.json)")
        return try #require(reply.json["processes"] as? [[String: Any]], "\(reply.json)")
    }

    @Test("either process lists both with their versions; an edit reaches both", .enabled(if: TestPostgres.isEnabled))
    func versionsOfEveryProcess() async throws {
        let url = try await TestPostgres.freshSchemaURL(prefix: "r")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-process-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("rules.yaml")
        try Self.rules(score: 10).write(to: file, atomically: true, encoding: .utf8)
        var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        environment["ATTESTGUARD_RULES_DIRECTORY"] = directory.path
        let first = try await ServerProcess(environment: environment)
        let second = try await ServerProcess(environment: environment)
        defer { _ = first.stop(); _ = second.stop() }

        // A reload writes the process's record at once (otherwise it comes with the next heartbeat, every 5 s).
        let version = try #require(try await first.post("v1/admin/rules/reload", [String: String]()).json["version"] as? String)
        #expect(try await second.post("v1/admin/rules/reload", [String: String]()).json["version"] as? String == version)
        let listed = try await Self.processes(first)
        #expect(listed.count == 2, "\(listed)")
        #expect(listed.allSatisfy { $0["version"] as? String == version && $0["rejected"] as? Bool == false })
        #expect(listed.filter { $0["current"] as? Bool == true }.count == 1)
        #expect(Set(listed.compactMap { $0["pid"] as? Int }).count == 2)

        // Edit the file: each process's watcher reloads it; the list on the second shows both on the new version.
        try Self.rules(score: 20).write(to: file, atomically: true, encoding: .utf8)
        var versions: [String] = []
        let started = ContinuousClock.now
        repeat {
            try await Task.sleep(for: .milliseconds(500))
            versions = try await Self.processes(second).compactMap { $0["version"] as? String }
        } while !(versions.count == 2 && versions.allSatisfy { $0 != version }) && ContinuousClock.now - started < .seconds(20)
        #expect(versions.count == 2 && Set(versions).count == 1 && versions[0] != version, "\(versions) within 20 s")
    }
}
