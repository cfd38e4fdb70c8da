import Foundation
import Testing

/// The iOS guide and the client's getting-started article show an app how to add this package: the line requires the
/// release in `VERSION` (releases are tagged with it), never a branch, so that an app builds what was released and
/// the line moves with the version.
struct ClientInstallLineTests {
    /// The documents that show the install line.
    static let documents = ["docs/ios.md", "Sources/AttestGuardClient/AttestGuardClient.docc/GettingStarted.md"]

    /// The `.package(...)` lines inside a Markdown document's fenced code blocks, trimmed.
    static func packageLines(in markdown: String) -> [String] {
        var lines: [String] = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("```") {
                inFence.toggle()
            } else if inFence, text.hasPrefix(".package(") {
                lines.append(text)
            }
        }
        return lines
    }

    /// Why an install line does not require release `version` (`from: "<version>"`); `nil` when it does.
    static func problem(with line: String, version: String) -> String? {
        if line.contains("branch:") { return "it follows a branch, not a release" }
        guard let required = line.firstMatch(of: /from:\s*"([^"]*)"/) else {
            return "it requires no release: write from: \"\(version)\""
        }
        return required.1 == version ? nil : "it requires \(required.1), and VERSION is \(version)"
    }

    @Test func installLinesRequireTheCurrentRelease() throws {
        let version = try RepositoryFiles.text("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        for document in Self.documents {
            let lines = Self.packageLines(in: try RepositoryFiles.text(document))
            #expect(!lines.isEmpty, "\(document) shows no .package(...) install line")
            for line in lines {
                if let problem = Self.problem(with: line, version: version) {
                    Issue.record("\(document): \(line): \(problem)")
                }
            }
        }
    }

    @Test func branchesAndOtherVersionsAreFound() {
        let current = #".package(url: "https://git.example.com/attestguard.git", from: "1.2.3"),   // this repository's URL"#
        #expect(Self.problem(with: current, version: "1.2.3") == nil)
        #expect(Self.problem(with: current, version: "1.3.0") == "it requires 1.2.3, and VERSION is 1.3.0")
        let branch = #".package(url: "https://git.example.com/attestguard.git", branch: "main"),"#
        #expect(Self.problem(with: branch, version: "1.2.3") == "it follows a branch, not a release")
        let exact = #".package(url: "https://git.example.com/attestguard.git", exact: "1.2.3"),"#
        #expect(Self.problem(with: exact, version: "1.2.3") == #"it requires no release: write from: "1.2.3""#)
        let markdown = """
            Add `.package(url:)` in prose: not a line.

            ```swift
                .package(url: "https://git.example.com/attestguard.git", from: "1.2.3"),
            .product(name: "AttestGuardClient", package: "attestguard"),
            ```

            .package(url: "outside a code block", branch: "main")
            """
        #expect(Self.packageLines(in: markdown) == [#".package(url: "https://git.example.com/attestguard.git", from: "1.2.3"),"#])
    }
}
