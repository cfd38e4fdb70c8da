import AttestTestSupport
import Foundation
import Testing

/// The last write-behind flush on shutdown has a budget of its own: with PostgreSQL's velocity and decision log
/// tables locked by another session, `attestguard serve` still exits soon after SIGTERM, and counts and logs what it
/// could not write.
@Suite("attestguard serve: the shutdown flush's budget (process, PostgreSQL)", .serialized)
struct ShutdownFlushProcessTests {
    /// Runs `psql` on the test database in the background: `sql` holds its locks until the process ends.
    static func psql(_ sql: String) throws -> Process {
        let candidates = ["/usr/bin/psql"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/psql" }
        let path = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "no psql")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [try TestPostgres.requiredURL(), "-v", "ON_ERROR_STOP=1", "-c", sql]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWhenDescriptorsAllow()
        return process
    }

    @Test("locked tables: the process exits within the flush budget and logs the dropped counts", .enabled(if: TestPostgres.isEnabled))
    func lockedTablesBoundTheFlush() async throws {
        let url = try await TestPostgres.freshSchemaURL(prefix: "f")
        let schema = try #require(url.split(separator: "search_path=").last.map(String.init))
        var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        environment["ATTESTGUARD_SERVER_SHUTDOWN_FLUSH_TIMEOUT_SECONDS"] = "1"
        let server = try await ServerProcess(environment: environment)
        // Writes wait for the lock; reads (a score reads velocity) do not.
        let locker = try Self.psql("""
            BEGIN; LOCK TABLE \(schema).velocity_buckets, \(schema).velocity_flushes, \(schema).decision_log IN EXCLUSIVE MODE;
            SELECT pg_sleep(60);
            """)
        // Only while it runs: once psql has ended (after its 60 s), its pid may be another process's.
        defer { if locker.isRunning { locker.terminate() } }
        try await Task.sleep(for: .seconds(1))
        // Each score records velocity and a decision log entry in memory, to be written behind the request.
        for index in 0..<5 {
            let reply = try await server.post("v1/score", ["appId": "ABCDE12345.com.example.attestguard", "userId": "flush-\(index)"])
            #expect(reply.status == 200, "\(reply.json)")
        }
        let took = try #require(await server.terminate(within: .seconds(60)), "still running 60 s after SIGTERM")
        // The store's own timeout here is TestPostgres.operationTimeout (120 s): an unbounded flush would wait for it.
        #expect(took < .seconds(12), "shutdown took \(took): \(server.standardError.suffix(3_000))")
        let warning = server.standardError.split(separator: "\n").first { $0.contains("shutdown flush did not finish in time") }
        #expect(warning != nil, "\(server.standardError.suffix(2_000))")
        #expect(warning.map { !$0.contains("velocity_buckets=0 ") } ?? false, "\(String(describing: warning))")
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
    }
}
