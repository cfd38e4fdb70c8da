import Testing

/// On a case-insensitive file system (macOS's default, Windows) two paths that differ only in case are one
/// path: a checkout with both is broken. These tests keep every tracked path unique when case is ignored.
struct PathCaseTests {
    /// Every prefix of a path: `a/b/c.swift` gives `a`, `a/b` and `a/b/c.swift`.
    static func prefixes(of path: String) -> [String] {
        let parts = path.split(separator: "/")
        return parts.indices.map { parts[...$0].joined(separator: "/") }
    }

    /// The prefixes (files and folders) that share one lowercased spelling with another prefix, grouped.
    static func caseCollisions(in paths: [String]) -> [[String]] {
        var spellings: [String: Set<String>] = [:]
        for path in paths {
            for prefix in prefixes(of: path) { spellings[prefix.lowercased(), default: []].insert(prefix) }
        }
        return spellings.values.filter { $0.count > 1 }.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    @Test func noTwoTrackedPathsDifferOnlyInCase() throws {
        let collisions = Self.caseCollisions(in: try RepositoryFiles.tracked())
        #expect(collisions.isEmpty, "paths that are one path on a case-insensitive file system: \(collisions)")
    }

    @Test func foldersAndFilesThatDifferOnlyInCaseAreFound() {
        let collisions = Self.caseCollisions(in: [
            "Sources/AttestGuard/Support/A.swift",
            "Sources/attestguard/Support/B.swift",
            "Tests/README.md",
            "Tests/readme.md",
            "Tests/Other.md",
        ])
        #expect(collisions == [
            ["Sources/AttestGuard", "Sources/attestguard"],
            ["Sources/AttestGuard/Support", "Sources/attestguard/Support"],
            ["Tests/README.md", "Tests/readme.md"],
        ])
    }
}
