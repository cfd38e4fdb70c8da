import AttestTestSupport
import Foundation
import Testing

/// What a module links, as SwiftPM itself resolves it (`swift package describe --type json`): an app that depends on
/// the `AttestGuardClient` product gets the client's own targets, the wire module and swift-crypto's `Crypto`; the
/// engine and the store contract link no database driver (only the runtime picks a backend).
struct TargetClosureTests {
    /// The package as `swift package describe` reports it.
    struct Description: Decodable {
        struct Target: Decodable {
            var name: String
            var target_dependencies: [String]?
            var product_dependencies: [String]?
        }

        struct Product: Decodable {
            var name: String
            var targets: [String]
        }

        var targets: [Target]
        var products: [Product]

        /// Every target `roots` depend on, themselves included, and the products those targets name.
        func closure(of roots: [String]) throws -> (targets: Set<String>, products: Set<String>) {
            let byName = Dictionary(targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var closure = Set<String>()
            var products = Set<String>()
            var pending = roots
            while let name = pending.popLast() {
                guard closure.insert(name).inserted else { continue }
                let target = try #require(byName[name], "\(name) is not a target of the package")
                pending += target.target_dependencies ?? []
                products.formUnion(target.product_dependencies ?? [])
            }
            return (closure, products)
        }
    }

    /// The description, read once for every test of the suite.
    static let shared = Task { try await describe() }

    /// Runs `swift package describe` with a scratch folder of its own (`swift test` holds the lock of `.build`), on a
    /// thread of its own: it takes seconds, which on the cooperative pool every other test would wait out.
    static func describe() async throws -> Description {
        let data = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try describeOutput() }) }
        }
        let output = try #require(data, "swift package describe failed")
        return try JSONDecoder().decode(Description.self, from: output)
    }

    /// What `swift package describe --type json` printed, or `nil` when it failed; blocks until it exits.
    private static func describeOutput() throws -> Data? {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "package", "--package-path", RepositoryFiles.root.path, "--scratch-path", scratch.path, "describe", "--type", "json",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWhenDescriptorsAllow()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    @Test func theClientProductLinksOnlyItsTargetsTheWireAndCrypto() async throws {
        let description = try await Self.shared.value
        let product = try #require(description.products.first { $0.name == "AttestGuardClient" })
        let (closure, products) = try description.closure(of: product.targets)
        var expected: Set<String> = ["AttestGuardClient", "AttestGuardWire"]
        #if os(Linux)
        // The stand-ins for Apple's DeviceCheck and Security exist only when the manifest is read on Linux.
        expected.formUnion(["DeviceCheck", "SecurityStub"])
        #endif
        #expect(closure == expected)
        #expect(products == ["Crypto"])
        let manifest = try RepositoryFiles.text("Package.swift")
        #expect(manifest.contains(#".product(name: "Crypto", package: "swift-crypto")"#), "Crypto is swift-crypto's")
    }

    @Test("the engine and the store contract link no database driver and no backend", arguments: ["AttestGuardEngine", "AttestGuardStore"])
    func noDatabaseDriverBelowTheRuntime(module: String) async throws {
        let (closure, products) = try await Self.shared.value.closure(of: [module])
        #expect(closure.isDisjoint(with: ["AttestGuardPostgres", "AttestGuardSQLite"]), "\(module) links \(closure.sorted())")
        #expect(products.isDisjoint(with: ["PostgresNIO", "SQLiteNIO"]), "\(module) links \(products.sorted())")
        #expect(closure.contains("AttestGuardStore"))
    }

    @Test("the runtime links both backends: it picks one")
    func theRuntimePicksTheBackend() async throws {
        let (closure, products) = try await Self.shared.value.closure(of: ["AttestGuardRuntime"])
        #expect(closure.isSuperset(of: ["AttestGuardPostgres", "AttestGuardSQLite"]))
        #expect(products.isSuperset(of: ["PostgresNIO", "SQLiteNIO"]))
    }
}
