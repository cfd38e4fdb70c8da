import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

/// The log as a shipper reads it: `attestguard serve` at debug in each format, driven through requests that used
/// to produce multi-line or huge records (a rejected rule reload, a 60 kB header, certificate chains at debug),
/// then stopped; `scripts/check-logs.py` must parse every line.
@Suite("Process: the log in logfmt and JSON")
struct LogFormatProcessTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every line of a server run parses", arguments: ["text", "json"])
    func everyLineParses(format: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-log-\(UUID().uuidString)")
        let rules = folder.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Rules"), to: rules)

        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: folder.appendingPathComponent("store.sqlite").path)
        environment["ATTESTGUARD_LOG_LEVEL"] = "debug"
        environment["ATTESTGUARD_LOG_FORMAT"] = format
        environment["ATTESTGUARD_RULES_DIRECTORY"] = rules.path
        let server = try await ServerProcess(environment: environment)

        var traced = URLRequest(url: server.baseURL.appendingPathComponent("healthz"))
        traced.setValue("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
        traced.setValue(String(repeating: "x", count: 60_000), forHTTPHeaderField: "X-Request-Id")
        _ = try await URLSession.shared.dataShieldedFromCancellation(for: traced)
        _ = try await server.send("POST", "v1/challenges", body: Data(#"{"appId":"nope"}"#.utf8))
        _ = try await server.challenge(purpose: "attestation", userId: "log-user")
        // A rule file whose problems span lines: the rejected reload's record must stay on one line.
        try Data("version: 1\nrules:\n  - id: broken\n    when: receipt.risk_metrc > 1\n    score: +10\n    reason: \"two\nlines\"\n".utf8)
            .write(to: rules.appendingPathComponent("broken.yaml"))
        let reload = try await server.send("POST", "v1/admin/rules/reload")
        #expect(reload.status == 200 || reload.status == 422, "\(reload.status)")
        let log = server.stopAndReadLog()
        #expect(server.process.terminationStatus == 0)
        let file = folder.appendingPathComponent("serve.log")
        try Data(log.utf8).write(to: file)
        let check = try await CommandLineRunner.runShell(
            "python3 scripts/check-logs.py --format \(format) '\(file.path)'", in: Self.repository, environment: ProcessInfo.processInfo.environment
        )
        #expect(check.status == 0, "\(check.standardError)")
        let lines = log.split(separator: "\n")
        #expect(lines.count > 10)
        let request = try #require(lines.first { $0.contains("4bf92f3577b34da6a3ce929d0e0e4736") }, "no line carries the trace id")
        #expect(request.contains("route"))
        #expect(request.contains("duration_ms"))
        #expect(!log.contains("hb.request.id"), "two request ids on a line")
        #expect(lines.contains { $0.contains("rule reload rejected") })
        #expect(lines.contains { $0.contains("attestguard stopped") })
        #expect(lines.contains { $0.contains("draining") })
        #expect(lines.allSatisfy { $0.utf8.count < 17_000 })
    }
}
