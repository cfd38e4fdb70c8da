import Foundation
import Testing

@Suite("CLI: version")
struct VersionCommandTests {
    @Test("--version prints the VERSION file's release and exits 0")
    func version() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("VERSION")
        let release = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try await CommandLineRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == release)
        #expect(!release.isEmpty)
    }
}
