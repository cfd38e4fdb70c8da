import AttestTestSupport
import Foundation
import Testing
@testable import RiskRules

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile and broken rule directories: huge names and texts, list paths that leave the directory, files that are
/// not regular files. Each is a typed problem in a small report, and a load never blocks.
@Suite("Rule directory edges")
struct RuleDirectoryEdgeTests {
    static let huge = String(repeating: "x", count: 1_000_000)
    static let rule = "rules:\n  - id: a\n    when: \"true\"\n    score: 1\n"

    /// A problem report stays this small whatever the file holds.
    static let reportBytes = 2_048

    @Test("a 10 MB rule id is too_long, and the report does not repeat it")
    func hugeRuleId() {
        let id = String(repeating: "a", count: 10_000_000)
        let errors = loadErrors("version: 1\nrules:\n  - id: \(id)\n    when: \"true\"\n    score: 1\n")
        #expect(errors.map(\.code) == [.tooLong])
        #expect(errors.allSatisfy { $0.description.utf8.count < Self.reportBytes }, "\(errors.first?.description.utf8.count ?? 0) bytes")
    }

    @Test("names and texts are bounded in bytes; no problem repeats a huge one", arguments: [
        ("version: 1\nlists:\n  ? \(huge)\n  : l.txt\nrules: []\n", RuleSetError.Code.tooLong),
        ("version: 1\nattributes:\n  ? \(huge)\n  : number\nrules: []\n", .tooLong),
        ("version: 1\nattributes: { x: \(huge) }\nrules: []\n", .invalidField),
        ("version: 1\nlists: { l: \(huge) }\nrules: []\n", .tooLong),
        ("version: \(huge)\nrules: []\n", .invalidField),
        ("version: 1\n? \(huge)\n: 1\nrules: []\n", .unknownField),
        ("version: 1\ndecisions:\n  review: 1\n  deny: 2\n  ? \(huge)\n  : 1\nrules: []\n", .unknownField),
        ("version: 1\n? \(huge)\n: 1\n? \(huge)\n: 2\n", .duplicateSetting),
        ("version: 1\nrules:\n  - id: -\(huge)\n    when: \"true\"\n    score: 1\n", .tooLong),
        ("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n    ? \(huge)\n    : 1\n", .unknownField),
        ("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n    description: \(huge)\n", .tooLong),
        ("version: 1\nrules:\n  - id: a\n    when: \"true\"\n    score: 1\n    reason: \(huge)\n", .tooLong),
        ("version: 1\nrules:\n  - id: a\n    when: \(huge)\n    score: 1\n", .tooLong),
    ])
    func boundedNames(yaml: String, code: RuleSetError.Code) {
        let errors = loadErrors(yaml)
        #expect(errors.first?.code == code, "\(errors.map(\.code))")
        for error in errors {
            #expect(error.description.utf8.count < Self.reportBytes, "\(error.code): \(error.description.utf8.count) bytes")
        }
    }

    @Test("past 100 problems the rest are counted in one too_many_problems")
    func manyProblems() {
        let rules = (0..<1_000).map { "  - id: bad id \($0)\n    when: \"true\"\n    score: 1\n" }.joined()
        let errors = loadErrors("version: 1\nrules:\n" + rules)
        #expect(errors.count == 101)
        #expect(errors.prefix(100).allSatisfy { $0.code == .invalidField })
        #expect(errors.last?.code == .tooManyProblems)
        #expect(errors.last?.message.hasPrefix("900 more problems") == true, "\(errors.last?.message ?? "")")
    }

    // MARK: - On disk

    /// A fresh rule directory with `lists/`, removed by `body`'s end.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rule-edges-\(UUID().uuidString)")
        let directory = base.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try "alice\n".write(to: directory.appendingPathComponent("lists/testers.txt"), atomically: true, encoding: .utf8)
        try "mallory\n".write(to: base.appendingPathComponent("outside.txt"), atomically: true, encoding: .utf8)
        try await body(directory)
    }

    static func write(_ yaml: String, to directory: URL, as name: String = "risk.yaml") throws {
        try yaml.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    static func directoryErrors(_ directory: URL) -> [RuleSetError] {
        do {
            _ = try RuleSetLoader.load(directory: directory.path)
            return []
        } catch {
            return error.errors
        }
    }

    @Test("a list path must stay inside the rule directory: ../, absolute paths and symlinks that leave it are refused")
    func listPathConfinement() async throws {
        try await Self.withDirectory { directory in
            let outside = directory.deletingLastPathComponent().appendingPathComponent("outside.txt").path
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("lists/away.txt").path, withDestinationPath: outside)
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("lists/up").path, withDestinationPath: "../..")
            let inside = directory.appendingPathComponent("lists/testers.txt").path
            for path in ["../outside.txt", "lists/../../outside.txt", outside, inside, "lists/away.txt", "lists/up/outside.txt"] {
                try Self.write("version: 1\nlists: { l: \"\(path)\" }\n" + Self.rule, to: directory)
                let errors = Self.directoryErrors(directory)
                #expect(errors.map(\.code) == [.pathOutsideDirectory], "\(path): \(errors)")
                #expect(errors.first?.line == 2)
            }
        }
    }

    @Test("list paths that resolve inside the directory load, through symlinks too")
    func listPathsInside() async throws {
        try await Self.withDirectory { directory in
            try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("lists/alias.txt").path, withDestinationPath: "testers.txt")
            for path in ["lists/testers.txt", "./lists/../lists/testers.txt", "lists/alias.txt"] {
                try Self.write("version: 1\nlists: { l: \"\(path)\" }\n" + Self.rule, to: directory)
                #expect(Self.directoryErrors(directory).isEmpty, "\(path)")
            }
        }
    }

    @Test("a FIFO or a directory as a rule or list file is not_regular_file, and the load returns at once", arguments: ["rule", "list", "directory"])
    func notRegularFiles(kind: String) async throws {
        try await Self.withDirectory { directory in
            switch kind {
            case "rule":
                try Self.write("version: 1\n" + Self.rule, to: directory)
                #expect(mkfifo(directory.appendingPathComponent("pipe.yaml").path, 0o600) == 0)
            case "list":
                try Self.write("version: 1\nlists: { l: lists/pipe.txt }\n" + Self.rule, to: directory)
                #expect(mkfifo(directory.appendingPathComponent("lists/pipe.txt").path, 0o600) == 0)
            default:
                try Self.write("version: 1\n" + Self.rule, to: directory)
                try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder.yaml"), withIntermediateDirectories: false)
            }
            let path = directory.path
            let errors = await finishing(within: 30) { Self.directoryErrors(URL(fileURLWithPath: path)).map(\.code) }
            #expect(errors == [.notRegularFile], "nil: the load blocked")
        }
    }
}
