import Foundation
import Testing

/// The OpenAPI document describes the server of this tree, so its `info.version` is the server's: `VERSION`.
struct OpenAPIVersionTests {
    /// The value of `info.version` in an OpenAPI document's YAML text (`nil` when it has none), without a trailing
    /// comment.
    static func infoVersion(in document: String) -> String? {
        var inInfo = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "info:" {
                inInfo = true
            } else if inInfo, !line.isEmpty, !line.hasPrefix(" ") {
                return nil
            } else if inInfo, let match = line.wholeMatch(of: /\x20\x20version: *([^\s#]+) *(#.*)?/) {
                return String(match.1)
            }
        }
        return nil
    }

    @Test func documentVersionIsTheServersVersion() throws {
        let version = try RepositoryFiles.text("VERSION").trimmingCharacters(in: .whitespacesAndNewlines)
        let documented = Self.infoVersion(in: try RepositoryFiles.text("OpenAPI/openapi.yaml"))
        #expect(documented == version, "OpenAPI/openapi.yaml's info.version is \(documented ?? "missing"), VERSION is \(version)")
    }

    @Test func versionIsReadFromTheInfoObject() {
        let document = "openapi: 3.1.0\ninfo:\n  title: X\n  version: 1.2.3   # note\n    version: 9\npaths:\n  version: 4.0.0\n"
        #expect(Self.infoVersion(in: document) == "1.2.3")
        #expect(Self.infoVersion(in: "info:\n  title: X\npaths:\n  version: 4.0.0\n") == nil)
    }
}
