import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

@Suite("CLI: version")
struct VersionCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The VERSION file's release.
    static func release() throws -> String {
        try String(contentsOf: root.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The short hash of the checkout's HEAD, as the build records it; `nil` outside a git checkout or without git.
    static func checkoutCommit() async throws -> String? {
        let result = try await CommandLineRunner.runShell(
            "git rev-parse --short HEAD", in: root, environment: ProcessInfo.processInfo.environment
        )
        let commit = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        return result.status == 0 && !commit.isEmpty ? commit : nil
    }

    @Test("--version prints the VERSION file's release, and the checkout's commit when built from one, and exits 0")
    func version() async throws {
        let release = try Self.release()
        let result = try await CommandLineRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(!release.isEmpty)
        let expected = try await Self.checkoutCommit().map { "\(release) (commit \($0))" } ?? release
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
    }

    @Test("a server's /readyz, attestguard_build_info and start-up log say what --version says")
    func runningServerAgrees() async throws {
        let release = try Self.release()
        let commit = try await Self.checkoutCommit()
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-version-\(UUID().uuidString).sqlite").path
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: sqlite)
        environment["ATTESTGUARD_LOG_LEVEL"] = "info"
        let server = try await ServerProcess(environment: environment)
        let ready = try await server.send("GET", "readyz")
        #expect(ready.json["version"] as? String == release)
        #expect(ready.json["commit"] as? String == commit)
        let (data, _) = try await URLSession.shared.dataShieldedFromCancellation(from: server.baseURL.appendingPathComponent("metrics"))
        let metrics = String(decoding: data, as: UTF8.self)
        #expect(metrics.contains(#"attestguard_build_info{version="\#(release)",commit="\#(commit ?? "")"} 1"#), "\(metrics)")
        let log = server.stopAndReadLog()
        let starting = try #require(log.split(separator: "\n").first { $0.contains("attestguard starting") }, "\(log)")
        #expect(starting.contains("version=\(release)") && starting.contains(commit.map { "commit=\($0)" } ?? "version="), "\(starting)")
    }
}
