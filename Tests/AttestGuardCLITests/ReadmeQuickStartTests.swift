import Foundation
import Testing

/// The README's quick start, run as written: every `sh` block of the section carries a marker saying how the test
/// runs it (`run`, `background` for the server a reader starts in another terminal, `skip` for the test suite
/// itself; ``DocumentCommands``).
@Suite("README quick start")
struct ReadmeQuickStartTests {
    static func quickStart() throws -> DocumentCommands {
        try DocumentCommands(DocumentCommands.page("README.md"), markerName: "quick-start", section: "Quick start")
    }

    @Test("every command block is marked, and the demo and the server are both in it")
    func blocksAreMarked() throws {
        let commands = try Self.quickStart()
        #expect(commands.blocks.count >= 4)
        for block in commands.unmarked { Issue.record("an sh block of the quick start has no <!-- quick-start: ... --> marker:\n\(block.text)") }
        #expect(commands.blocks.first?.text.contains("swift run -c release attestguard demo") == true)
        #expect(commands.blocks.contains { $0.marker == .background && $0.text.contains("attestguard serve") })
    }

    @Test("the quick start's commands run as written: the demo passes, a key is registered and its assertion accepted")
    func quickStartRuns() async throws {
        let (result, log) = try await Self.quickStart().run()
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)\n\(log)")
        #expect(result.standardOutput.contains("every persona got its expected outcome"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(#""status":"active""#), "the attestation registered the key: \(result.standardOutput)")
        #expect(result.standardOutput.contains(#""counter":1"#), "the assertion was accepted: \(result.standardOutput)")
    }
}
