import Foundation
import Testing

/// The README and docs describe the repository on their own: every link stays inside it, so a reader of a
/// fresh clone (or of an offline copy) never meets a link to something that is not there.
struct DocumentLinkTests {
    /// What a Markdown document points at: `[text](target)` links, the web addresses written out in it, and paths
    /// in backticks that climb out of the document's folder (`../...`).
    static func targets(in markdown: String) -> [String] {
        var found: [String] = []
        let linkPattern = /\]\(([^)\s]+)\)/
        for match in markdown.matches(of: linkPattern) { found.append(String(match.1)) }
        let climbingPath = /`(\.\.\/[^`\s]+)`/
        for match in markdown.matches(of: climbingPath) { found.append(String(match.1)) }
        let addressPattern = /https?:\/\/[^\s)`"'>]+/
        for match in markdown.matches(of: addressPattern) { found.append(String(match.0)) }
        return found
    }

    /// Why `target`, written in the document at `documentPath`, leaves the repository; `nil` when it does not.
    static func escape(of target: String, from documentPath: String) -> String? {
        if target.hasPrefix("#") { return nil }
        if let scheme = target.range(of: "://") {
            let host = target[scheme.upperBound...].prefix { $0 != "/" && $0 != ":" }
            return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || isReservedExample(String(host)) ? nil : "a web address"
        }
        if target.hasPrefix("/") { return "a path outside the repository" }
        let folder = (documentPath as NSString).deletingLastPathComponent
        let path = target.split(separator: "#", maxSplits: 1).first.map(String.init) ?? target
        var depth = folder.split(separator: "/").count
        for part in path.split(separator: "/") {
            if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
            if depth < 0 { return "a path outside the repository" }
        }
        let resolved = RepositoryFiles.root.appendingPathComponent(folder).appendingPathComponent(path).standardized
        return FileManager.default.fileExists(atPath: resolved.path) ? nil : "a file that does not exist"
    }

    /// Whether `host` is a name RFC 2606 reserves for examples (`shop.example`, `git.example.com`): a placeholder in
    /// sample code that no reader can follow, not a link.
    static func isReservedExample(_ host: String) -> Bool {
        let host = host.lowercased()
        return host.hasSuffix(".example") || ["example.com", "example.net", "example.org"].contains { host == $0 || host.hasSuffix("." + $0) }
    }

    @Test func documentsLinkOnlyInsideTheRepository() throws {
        let documents = try RepositoryFiles.tracked().filter { $0.hasSuffix(".md") }
        #expect(documents.contains("README.md") && documents.contains("docs/contract.md"))
        for document in documents {
            for target in Self.targets(in: try RepositoryFiles.text(document)) {
                if let escape = Self.escape(of: target, from: document) {
                    Issue.record("\(document) links to \(target): \(escape)")
                }
            }
        }
    }

    @Test func linksOutsideTheRepositoryAreFound() {
        #expect(Self.escape(of: "../shared/reference/contract.md", from: "README.md") == "a path outside the repository")
        #expect(Self.escape(of: "../../x.md", from: "docs/contract.md") == "a path outside the repository")
        #expect(Self.escape(of: "https://llvm.org/docs/LibFuzzer.html", from: "Fuzz/README.md") == "a web address")
        #expect(Self.escape(of: "docs/missing.md", from: "README.md") == "a file that does not exist")
        #expect(Self.escape(of: "docs/contract.md", from: "README.md") == nil)
        #expect(Self.escape(of: "../README.md#testing", from: "docs/contract.md") == nil)
        #expect(Self.escape(of: "#post-v1score", from: "Benchmarks/README.md") == nil)
        #expect(Self.escape(of: "http://127.0.0.1:8090", from: "README.md") == nil)
        #expect(Self.escape(of: "https://shop.example/attestguard/", from: "README.md") == nil)
        #expect(Self.escape(of: "https://git.example.com/attestguard.git", from: "README.md") == nil)
        #expect(Self.escape(of: "https://example.community/x", from: "README.md") == "a web address")
        #expect(Self.targets(in: "see [the contract](docs/contract.md) and https://example.com/x.") == ["docs/contract.md", "https://example.com/x."])
        // A path in backticks that climbs out of the repository is found too.
        let readme = "The contract is `../shared/reference/contract.md`; the document is `OpenAPI/openapi.yaml`."
        #expect(Self.targets(in: readme) == ["../shared/reference/contract.md"])
        #expect(Self.escape(of: "../shared/reference/contract.md", from: "README.md") == "a path outside the repository")
    }
}
