import Foundation
import Testing

/// The README's quick start, run as written: every `sh` block of the section carries a marker saying how the test
/// runs it (`run`, `background` for the server a reader starts in another terminal, `skip` for the test suite
/// itself), and the commands that build or name the binary run the one the test command already built.
@Suite("README quick start")
struct ReadmeQuickStartTests {
    enum Marker: String {
        case run
        case background
        case skip
    }

    struct Block {
        let marker: Marker?
        let text: String
    }

    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The `sh` blocks between `## Quick start` and the next second-level heading, each with the marker of the
    /// `<!-- quick-start: ... -->` line just above it.
    static func blocks(in readme: String) throws -> [Block] {
        let section = try #require(readme.firstRange(of: "\n## Quick start\n")).upperBound
        let rest = readme[section...]
        let text = rest[..<(rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var blocks: [Block] = []
        var marker: Marker?
        var body: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = body {
                if line == "```" {
                    blocks.append(Block(marker: marker, text: lines.joined(separator: "\n")))
                    body = nil
                    marker = nil
                } else {
                    lines.append(line)
                    body = lines
                }
            } else if let match = line.wholeMatch(of: /<!-- quick-start: ([a-z]+)[^>]*-->/) {
                marker = Marker(rawValue: String(match.1))
            } else if line == "```sh" {
                body = []
            } else if !line.isEmpty {
                marker = nil
            }
        }
        return blocks
    }

    /// A block's commands with the build steps dropped and every way of naming the binary pointing at the built one,
    /// the default port replaced by the one the test's server took.
    static func mapped(_ block: String) -> String {
        block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.wholeMatch(of: /swift build( .*)?/) == nil }
            .joined(separator: "\n")
            .replacing(/swift run( -c (release|debug))? attestguard/, with: "\"$ATTESTGUARD_BIN\"")
            .replacing(/\.build\/(debug|release)\/attestguard/, with: "\"$ATTESTGUARD_BIN\"")
            .replacing("localhost:8080", with: "localhost:$PORT")
    }

    @Test("every command block is marked, and the demo and the server are both in it")
    func blocksAreMarked() throws {
        let blocks = try Self.blocks(in: String(contentsOf: Self.readme, encoding: .utf8))
        #expect(blocks.count >= 4)
        for block in blocks { #expect(block.marker != nil, "an sh block of the quick start has no <!-- quick-start: ... --> marker:\n\(block.text)") }
        #expect(blocks.first?.text.contains("swift run -c release attestguard demo") == true)
        #expect(blocks.contains { $0.marker == .background && $0.text.contains("attestguard serve") })
    }

    @Test("the quick start's commands run as written: the demo passes, a key is registered and its assertion accepted")
    func quickStartRuns() async throws {
        let blocks = try Self.blocks(in: String(contentsOf: Self.readme, encoding: .utf8))
        var script = ["set -euo pipefail"]
        for block in blocks {
            switch block.marker {
            case .run?:
                script.append(Self.mapped(block.text))
            case .background?:
                // On a port of the system's choice (no race with other tests for a fixed one), read from its first line.
                script.append("( \(Self.mapped(block.text)) ) > server.log 2>&1 &")
                script.append("server=$!; trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT")
                script.append("for _ in $(seq 1 600); do grep -q 'listening on' server.log && break; sleep 0.1; done")
                script.append(#"PORT=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' server.log | head -1)"#)
            case .skip?, nil:
                continue
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["ATTESTGUARD_BIN"] = CommandLineRunner.executable.path
        environment["ATTESTGUARD_SERVER_PORT"] = "0"
        let result = try await CommandLineRunner.runShell(script.joined(separator: "\n"), in: folder, environment: environment)
        let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)\nserver:\n\(log)")
        #expect(result.standardOutput.contains("every persona got its expected outcome"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(#""status":"active""#), "the attestation registered the key: \(result.standardOutput)")
        #expect(result.standardOutput.contains(#""counter":1"#), "the assertion was accepted: \(result.standardOutput)")
    }
}
