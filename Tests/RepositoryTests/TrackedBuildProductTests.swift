import Testing

/// What a build or a tool run leaves behind is never tracked: Python's bytecode caches, SwiftPM's build folders,
/// object files. They differ per machine and interpreter, and a stale one misleads whoever reads the tree.
struct TrackedBuildProductTests {
    /// The paths among `paths` that are build products.
    static func buildProducts(in paths: [String]) -> [String] {
        paths.filter { path in
            let parts = path.split(separator: "/")
            let name = parts.last.map(String.init) ?? path
            return parts.dropLast().contains { $0 == "__pycache__" || $0 == ".build" || $0.hasPrefix(".build-") || $0 == ".swiftpm" }
                || name.hasSuffix(".pyc") || name.hasSuffix(".pyo") || name.hasSuffix(".o") || name == "Package.resolved"
        }
    }

    @Test func noBuildProductIsTracked() throws {
        let products = Self.buildProducts(in: try RepositoryFiles.tracked())
        #expect(products.isEmpty, "tracked build products (untrack them; .gitignore covers them): \(products)")
    }

    @Test func buildProductsAreRecognised() {
        #expect(Self.buildProducts(in: [
            "scripts/__pycache__/console-browser.cpython-311.pyc",
            "scripts/tool.pyc",
            "Benchmarks/.build/debug/x",
            ".build-package/stage/usr/local/bin/attestguard",
            "Package.resolved",
            "scripts/console-browser.py",
            "Sources/AttestCore/Build.swift",
            "docs/building.md",
        ]) == [
            "scripts/__pycache__/console-browser.cpython-311.pyc",
            "scripts/tool.pyc",
            "Benchmarks/.build/debug/x",
            ".build-package/stage/usr/local/bin/attestguard",
            "Package.resolved",
        ])
    }
}
