import Foundation
import Testing

/// `attestguard rules lint|test|explain|signals` on the shipped rule set and on broken copies of it.
@Suite("attestguard rules")
struct RulesCommandTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Rules").path

    /// A copy of the shipped rules with `edit` applied to its default.yaml (and `caseEdit` to its tests).
    static func brokenCopy(edit: (String) -> String = { $0 }, caseEdit: (String) -> String = { $0 }) throws -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: shipped, toPath: copy.path)
        let rules = copy.appendingPathComponent("default.yaml")
        try edit(try String(contentsOf: rules, encoding: .utf8)).write(to: rules, atomically: true, encoding: .utf8)
        let cases = copy.appendingPathComponent("tests/default.yaml")
        try caseEdit(try String(contentsOf: cases, encoding: .utf8)).write(to: cases, atomically: true, encoding: .utf8)
        return copy.path
    }

    @Test("the shipped rules lint clean and their cases pass")
    func shippedRules() async throws {
        let lint = try await CommandLineRunner.run(["rules", "lint", "--rules", Self.shipped])
        #expect(lint.status == 0, "\(lint.standardError)")
        #expect(lint.standardOutput.contains("version sha256:"))
        let test = try await CommandLineRunner.run(["rules", "test", "--rules", Self.shipped])
        #expect(test.status == 0, "\(test.standardOutput)\(test.standardError)")
        #expect(test.standardOutput.contains(" passed, 0 failed"))
    }

    @Test("a typo'd signal, a type error and a syntax error fail lint with file:line:column")
    func lintFailures() async throws {
        let directory = try Self.brokenCopy { yaml in
            yaml.replacingOccurrences(of: "when: receipt.risk_metric >= 10", with: "when: receipt.risk_metrc >= 10")
                .replacingOccurrences(of: "when: key.counter_jump > 100", with: "when: key.counter_jump > 1h")
                .replacingOccurrences(of: "when: devicecheck.bit1", with: "when: devicecheck.bit1 and")
        }
        let lint = try await CommandLineRunner.run(["rules", "lint", "--rules", directory])
        #expect(lint.status == 1)
        let file = "\(directory)/default.yaml"
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        func line(of text: String) -> Int { (lines.firstIndex { $0.contains(text) } ?? -1) + 1 }
        let typo = line(of: "receipt.risk_metrc"), mismatch = line(of: "key.counter_jump > 1h")
        #expect(lint.standardError.contains("\(file):\(typo):11: error[unknown_signal]: unknown signal `receipt.risk_metrc`"), "\(lint.standardError)")
        #expect(lint.standardError.contains("hint: did you mean `receipt.risk_metric`?"))
        #expect(lint.standardError.contains("\(file):\(mismatch):11: error[type_mismatch]"))
        #expect(lint.standardError.contains("error[syntax_error]"))
        #expect(lint.standardError.contains("3 problem(s)"))
    }

    @Test("a case whose expectation does not hold fails rules test with what differed")
    func failingCase() async throws {
        let directory = try Self.brokenCopy(caseEdit: { cases in
            cases.replacingOccurrences(of: "expect: { decision: review, fired: [key-farm], score: 60 }",
                                       with: "expect: { decision: allow, fired: [key-farm], score: 60 }")
        })
        let test = try await CommandLineRunner.run(["rules", "test", "--rules", directory])
        #expect(test.status == 1)
        #expect(test.standardOutput.contains("FAIL a farm device is reviewed"))
        #expect(test.standardOutput.contains("decision review, expected allow"))
    }

    @Test("explain shows fired rules, missing signals and the decision; --json is the evaluation")
    func explain() async throws {
        let signals = try CommandLineRunner.temporaryFile(Array("key.status: active\nreceipt.risk_metric: 12\n".utf8), name: "signals.yaml")
        let text = try await CommandLineRunner.run(["rules", "explain", "--rules", Self.shipped, "--signals", signals, "--now", "2026-01-01T00:00:00Z"])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("FIRED    key-farm (+60): the device has 12 attested keys in 30 days"))
        #expect(text.standardOutput.contains("score 60 -> review (by the thresholds)"))
        let json = try await CommandLineRunner.run(["rules", "explain", "--rules", Self.shipped, "--signals", signals, "--json"])
        #expect(json.json["decision"] as? String == "review")

        let typo = try CommandLineRunner.temporaryFile(Array("receipt.riskmetric: 12\n".utf8), name: "signals.yaml")
        let refused = try await CommandLineRunner.run(["rules", "explain", "--rules", Self.shipped, "--signals", typo])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("1:1: error[unknown_signal]"))
    }

    @Test("signals prints the schema table")
    func signals() async throws {
        let result = try await CommandLineRunner.run(["rules", "signals"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("| `receipt.risk_metric` | number |"))
        #expect(result.standardOutput.contains("velocity.<event>.<per>.<window>"))
    }

    @Test("every rules subcommand names its directory with --rules; lint's and test's positional spelling still works, with a note")
    func oneRuleDirectoryConvention() async throws {
        let positional = try await CommandLineRunner.run(["rules", "lint", Self.shipped])
        #expect(positional.status == 0, "\(positional.standardError)")
        #expect(positional.standardError.contains("the rule directory as an argument is deprecated; write --rules \(Self.shipped)"))
        #expect(positional.standardOutput.hasPrefix("\(Self.shipped): "))
        let oldTest = try await CommandLineRunner.run(["rules", "test", Self.shipped])
        #expect(oldTest.status == 0 && oldTest.standardError.contains("deprecated"), "\(oldTest.standardError)")
        let twice = try await CommandLineRunner.run(["rules", "lint", Self.shipped, "--rules", Self.shipped])
        #expect(twice.status == 64 || twice.status == 2, "a usage error: \(twice.status)")
        #expect(twice.standardError.contains("name the rule directory once, with --rules DIR"))
        let missing = try await CommandLineRunner.run(["rules", "lint", "--rules", "/nonexistent/rules-dir"])
        #expect(missing.status == 1, "a named directory that does not exist is an error, never the embedded set")
        #expect(!missing.standardError.contains("embedded default rule set"))
    }

    @Test("outside a checkout, lint, test and explain read the embedded default rule set and say so")
    func embeddedDefaultOutsideACheckout() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-no-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("key.status: active\nreceipt.risk_metric: 12\n".utf8).write(to: folder.appendingPathComponent("signals.yaml"))
        var environment = ProcessInfo.processInfo.environment
        environment["DOC_ATTESTGUARD_BIN"] = CommandLineRunner.executable.path
        let result = try await CommandLineRunner.runShell(
            """
            set -e
            "$DOC_ATTESTGUARD_BIN" rules lint
            "$DOC_ATTESTGUARD_BIN" rules test | tail -1
            "$DOC_ATTESTGUARD_BIN" rules explain --signals signals.yaml --now 2026-01-01T00:00:00Z | tail -1
            ls -A
            """,
            in: folder, environment: environment
        )
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("embedded default rule set: "), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(" passed, 0 failed"))
        #expect(result.standardOutput.contains("-> review"), "\(result.standardOutput)")
        #expect(result.standardOutput.hasSuffix("signals.yaml\n"), "nothing is left in the working directory: \(result.standardOutput)")
        let notes = result.standardError.split(separator: "\n").filter { $0.contains("no Rules directory here; reading the embedded default rule set") }
        #expect(notes.count == 3, "\(result.standardError)")
    }
}
