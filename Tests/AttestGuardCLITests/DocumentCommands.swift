import Foundation
import Testing

/// The shell commands of a Markdown page, run as a reader runs them. Every `sh` block carries a marker line just
/// above it, `<!-- NAME: run -->`, `<!-- NAME: background PORT -->` (a server the reader starts in another terminal,
/// documented on PORT) or `<!-- NAME: skip (why) -->`. The test runs the `run` blocks in order in one shell, with
/// every `background` block started before them on a port of the system's choice (no race with other tests for a
/// fixed one), and the documented ports in the commands pointed at the ports taken. Commands that build or name
/// the binary run the one the test command already built.
struct DocumentCommands {
    enum Marker: String {
        case run
        case background
        case skip
    }

    struct Block {
        let marker: Marker?
        /// The port a `background` block's server is documented on (8080 when the marker names none).
        let port: Int
        let text: String
    }

    let blocks: [Block]

    /// The `sh` blocks of `text` (or of its section under the second-level heading `section`), each with the marker
    /// of the `<!-- markerName: ... -->` line just above it.
    init(_ text: String, markerName: String, section: String? = nil) throws {
        var body = Substring(text)
        if let section {
            let start = try #require(text.firstRange(of: "\n## \(section)\n")).upperBound
            let rest = text[start...]
            body = rest[..<(rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        }
        var blocks: [Block] = []
        var marker: (Marker?, Int)?
        var lines: [Substring]?
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            if var open = lines {
                if line == "```" {
                    blocks.append(Block(marker: marker?.0, port: marker?.1 ?? 8080, text: open.joined(separator: "\n")))
                    lines = nil
                    marker = nil
                } else {
                    open.append(line)
                    lines = open
                }
            } else if let match = line.wholeMatch(of: /<!-- ([a-z-]+): ([a-z]+)(?: ([0-9]+))?[^>]*-->/), match.1 == markerName {
                marker = (Marker(rawValue: String(match.2)), match.3.flatMap { Int($0) } ?? 8080)
            } else if line == "```sh" {
                lines = []
            } else if !line.isEmpty {
                marker = nil
            }
        }
        self.blocks = blocks
    }

    /// The blocks without a marker: each is a failure of the page's test.
    var unmarked: [Block] { blocks.filter { $0.marker == nil } }

    /// Whether a command reads the operator listener (documented on 9090).
    var readsOperatorListener: Bool { blocks.contains { $0.marker == .run && $0.text.contains(":9090") } }

    /// The documented ports of the page's servers.
    var backgroundPorts: [Int] { blocks.filter { $0.marker == .background }.map(\.port) }

    /// A block's commands with the build steps dropped, every way of naming the binary pointing at the built one, and
    /// the documented ports pointing at the ones the servers took (`$PORT_8080`, `$OPERATOR_PORT` for the operator
    /// listener's 9090).
    func mapped(_ block: String) -> String {
        var text = block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.wholeMatch(of: /swift build( .*)?/) == nil }
            .joined(separator: "\n")
            .replacing(/swift run( -c (release|debug))? attestguard/, with: "\"$DOC_ATTESTGUARD_BIN\"")
            .replacing(/\.build\/(debug|release)\/attestguard/, with: "\"$DOC_ATTESTGUARD_BIN\"")
            .replacing(/(^|[ (;|&])attestguard (?=[a-z])/.anchorsMatchLineEndings()) { "\($0.1)\"$DOC_ATTESTGUARD_BIN\" " }
        for port in backgroundPorts {
            text = text.replacing("localhost:\(port)", with: "localhost:$PORT_\(port)").replacing("127.0.0.1:\(port)", with: "127.0.0.1:$PORT_\(port)")
        }
        return text.replacing("localhost:9090", with: "localhost:$OPERATOR_PORT").replacing("127.0.0.1:9090", with: "127.0.0.1:$OPERATOR_PORT")
    }

    /// One shell script: the servers started (each waited for until its log, `server-PORT.log`, names the URL it
    /// listens on, for at most two minutes; stopped at the end), then the `run` blocks.
    var script: String {
        var script = ["set -euo pipefail", "servers=()", #"trap 'for s in "${servers[@]}"; do kill $s 2>/dev/null || true; wait $s 2>/dev/null || true; done' EXIT"#]
        for block in blocks {
            switch block.marker {
            case .run?:
                script.append(mapped(block.text))
            case .background?:
                let log = "server-\(block.port).log"
                let command = mapped(block.text)
                    .replacing("--port \(block.port)", with: "--port 0")
                    .replacing("port: \(block.port)", with: "port: 0")
                script.append("( \(command) ) > \(log) 2>&1 &")
                script.append("servers+=($!)")
                // Waits for the line with the URL (`attestguard listening on http://...`), not for a library's own
                // "listening" log line, which comes first; and for the operator listener's when the page reads it.
                let operatorListener = block.port == 8080 && readsOperatorListener
                let readOperatorPort = #"OPERATOR_PORT=$(sed -n 's/.*operator listener at http:\/\/[^:]*:\([0-9]*\).*/\1/p' \#(log) | head -1)"#
                script.append(#"""
                    for _ in $(seq 1 1200); do
                        PORT_\#(block.port)=$(sed -n 's/.*listening on https\{0,1\}:\/\/[^:]*:\([0-9]*\).*/\1/p' \#(log) | head -1)
                        \#(operatorListener ? readOperatorPort : ":")
                        [ -n "$PORT_\#(block.port)" ]\#(operatorListener ? #" && [ -n "$OPERATOR_PORT" ]"# : "") && break; sleep 0.1
                    done
                    """#)
            case .skip?, nil:
                continue
            }
        }
        return script.joined(separator: "\n")
    }

    /// Runs ``script`` in a new folder holding copies of `copies` (paths relative to the repository: what a reader
    /// in a checkout has) and returns its outcome with the servers' logs.
    func run(copying copies: [String] = [], environment extra: [String: String] = [:]) async throws -> (result: CommandLineRunner.Result, logs: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for path in copies {
            try FileManager.default.copyItem(at: Self.repository.appendingPathComponent(path), to: folder.appendingPathComponent(path))
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTESTGUARD_") }
        environment["DOC_ATTESTGUARD_BIN"] = CommandLineRunner.executable.path
        environment["ATTESTGUARD_SERVER_PORT"] = "0"
        environment.merge(extra) { $1 }
        let result = try await CommandLineRunner.runShell(script, in: folder, environment: environment)
        let logs = backgroundPorts.map { port in
            "server-\(port).log:\n" + ((try? String(contentsOf: folder.appendingPathComponent("server-\(port).log"), encoding: .utf8)) ?? "")
        }
        return (result, logs.joined(separator: "\n"))
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func page(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }
}
