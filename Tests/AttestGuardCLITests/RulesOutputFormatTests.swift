import Foundation
import Testing

/// `rules lint|test --format json|junit`: the JSON checked by jsonschema against `docs/schemas/`, the JUnit read by
/// junitparser, both held to what the text output says, and exit codes and standard error alike in every format.
@Suite("attestguard rules --format")
struct RulesOutputFormatTests {
    /// Six problems of six kinds in the shipped set: with and without hints, in expressions, fields, ids and lists.
    static func brokenRules() throws -> String {
        try RulesCommandTests.brokenCopy { yaml in
            yaml.replacingOccurrences(of: "when: receipt.risk_metric >= 10", with: "when: receipt.risk_metrc >= 10")
                .replacingOccurrences(of: "when: key.counter_jump > 100", with: "when: key.counter_jump > 1h")
                .replacingOccurrences(of: "when: devicecheck.bit1", with: "when: devicecheck.bit1 and")
                .replacingOccurrences(of: "    description: this user has replaced", with: "    descripton: this user has replaced")
                .replacingOccurrences(of: "  - id: retired-key", with: "  - id: unknown-key")
                .replacingOccurrences(of: "trusted_testers: lists/trusted-testers.txt", with: "trusted_testers: /etc/passwd")
        }
    }

    static let brokenCodes: Set = ["unknown_signal", "type_mismatch", "syntax_error", "unknown_field", "duplicate_rule", "path_outside_directory"]

    /// A failing case (`a farm device is reviewed` expects allow) and a second case file with a case lacking `expect`.
    static func failingCases() throws -> String {
        let directory = try RulesCommandTests.brokenCopy(caseEdit: { cases in
            cases.replacingOccurrences(of: "expect: { decision: review, fired: [key-farm], score: 60 }",
                                       with: "expect: { decision: allow, fired: [key-farm], score: 60 }")
        })
        try "cases:\n  - name: no expectation\n    signals: { key.status: active }\n"
            .write(toFile: "\(directory)/tests/incomplete.yaml", atomically: true, encoding: .utf8)
        return directory
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not a JSON object: \(json)")
    }

    /// `N` of the text output's `N problem(s); the rule set does not load`.
    static func problemCount(_ standardError: String) throws -> Int {
        let match = try #require(standardError.firstMatch(of: /(\d+) problem\(s\); the rule set does not load/), "\(standardError)")
        return try #require(Int(match.1))
    }

    @Test("lint --format json of a clean and of a broken set validates against its schema and says what text says",
          .enabled(if: PythonTools.available))
    func lintJSON() async throws {
        let text = try await CommandLineRunner.run(["rules", "lint", "--rules", RulesCommandTests.shipped])
        let clean = try await CommandLineRunner.run(["rules", "lint", "--rules", RulesCommandTests.shipped, "--format", "json"])
        #expect(clean.status == 0, "\(clean.standardError)")
        let validClean = try await PythonTools.validate(clean.standardOutput, schema: "rules-lint-output.schema.json")
        #expect(validClean.status == 0, "\(validClean.standardError)")
        let cleanObject = try Self.object(clean.standardOutput)
        #expect(cleanObject["passed"] as? Bool == true)
        let ruleSet = try #require(cleanObject["ruleSet"] as? [String: Any])
        let version = try #require(ruleSet["version"] as? String)
        #expect(text.standardOutput.contains("version \(version),"))
        #expect(text.standardOutput.contains("\(ruleSet["rules"] as? Int ?? -1) rules"))
        #expect((cleanObject["files"] as? [String]) == ["\(RulesCommandTests.shipped)/default.yaml"])

        let directory = try Self.brokenRules()
        let brokenText = try await CommandLineRunner.run(["rules", "lint", "--rules", directory])
        let broken = try await CommandLineRunner.run(["rules", "lint", "--rules", directory, "--format", "json"])
        #expect(brokenText.status == 1 && broken.status == 1)
        let validBroken = try await PythonTools.validate(broken.standardOutput, schema: "rules-lint-output.schema.json")
        #expect(validBroken.status == 0, "\(validBroken.standardError)")
        let object = try Self.object(broken.standardOutput)
        #expect(object["passed"] as? Bool == false)
        #expect(object["ruleSet"] is NSNull)
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(Set(problems.compactMap { $0["code"] as? String }) == Self.brokenCodes)
        #expect(problems.count == (try Self.problemCount(brokenText.standardError)))
        #expect((object["summary"] as? [String: Any])?["problems"] as? Int == problems.count)
        #expect(problems.contains { $0["hint"] is NSNull } && problems.contains { $0["hint"] is String })
        for problem in problems {
            let line = problem["line"] as? Int ?? -1, column = problem["column"] as? Int ?? -1
            let place = "\(problem["file"] as? String ?? "?"):\(line):\(column)"
            #expect(brokenText.standardError.contains("\(place): error[\(problem["code"] as? String ?? "?")]: \(problem["message"] as? String ?? "?")"))
        }
    }

    @Test("test --format json validates against its schema: passing, failing, a case file problem, a set that does not load",
          .enabled(if: PythonTools.available))
    func testJSON() async throws {
        let shipped = try await CommandLineRunner.run(["rules", "test", "--rules", RulesCommandTests.shipped, "--format", "json"])
        #expect(shipped.status == 0, "\(shipped.standardError)")
        let validShipped = try await PythonTools.validate(shipped.standardOutput, schema: "rules-test-output.schema.json")
        #expect(validShipped.status == 0, "\(validShipped.standardError)")
        let text = try await CommandLineRunner.run(["rules", "test", "--rules", RulesCommandTests.shipped])
        let passing = text.standardOutput.split(separator: "\n").filter { $0.hasPrefix("PASS ") }.count
        #expect((try Self.object(shipped.standardOutput)["summary"] as? [String: Any])?["passed"] as? Int == passing)

        let directory = try Self.failingCases()
        let failingText = try await CommandLineRunner.run(["rules", "test", "--rules", directory])
        let failing = try await CommandLineRunner.run(["rules", "test", "--rules", directory, "--format", "json"])
        #expect(failingText.status == 1 && failing.status == 1)
        let validFailing = try await PythonTools.validate(failing.standardOutput, schema: "rules-test-output.schema.json")
        #expect(validFailing.status == 0, "\(validFailing.standardError)")
        let object = try Self.object(failing.standardOutput)
        let summary = try #require(object["summary"] as? [String: Any])
        let counts = (summary["passed"] as? Int ?? -1, summary["failed"] as? Int ?? -1, summary["problems"] as? Int ?? -1)
        #expect(counts.1 == 1 && counts.2 == 1)
        #expect(failingText.standardOutput.contains("\(counts.0) passed, \(counts.1) failed, \(counts.2) case file problem(s)"))
        let cases = try #require(object["cases"] as? [[String: Any]])
        let farm = try #require(cases.first { $0["name"] as? String == "a farm device is reviewed" })
        #expect(farm["passed"] as? Bool == false)
        #expect(farm["message"] as? String == "decision review, expected allow")
        #expect(failingText.standardOutput.contains("FAIL a farm device is reviewed (\(farm["file"] as? String ?? "?"):\(farm["line"] as? Int ?? -1)): decision review, expected allow"))
        let expected = try #require(farm["expected"] as? [String: Any]), actual = try #require(farm["actual"] as? [String: Any])
        #expect(expected["decision"] as? String == "allow" && expected["fired"] as? [String] == ["key-farm"] && expected["score"] as? Double == 60)
        #expect(actual["decision"] as? String == "review" && actual["score"] as? Double == 60 && actual["decidedBy"] is NSNull)
        #expect((actual["fired"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["key-farm"])
        let problem = try #require((object["problems"] as? [[String: Any]])?.first)
        #expect(problem["code"] as? String == "invalid_test_case" && problem["file"] as? String == "\(directory)/tests/incomplete.yaml")

        let unloadable = try RulesCommandTests.brokenCopy { $0.replacingOccurrences(of: "when: receipt.risk_metric >= 10", with: "when: receipt.risk_metrc >= 10") }
        let refused = try await CommandLineRunner.run(["rules", "test", "--rules", unloadable, "--format", "json"])
        #expect(refused.status == 1)
        let validRefused = try await PythonTools.validate(refused.standardOutput, schema: "rules-test-output.schema.json")
        #expect(validRefused.status == 0, "\(validRefused.standardError)")
        let refusedObject = try Self.object(refused.standardOutput)
        #expect(refusedObject["ruleSet"] is NSNull && (refusedObject["cases"] as? [Any])?.isEmpty == true)
        #expect((refusedObject["problems"] as? [[String: Any]])?.first?["code"] as? String == "unknown_signal")
    }

    @Test("lint --format junit reads in junitparser: a suite per file, a failure per problem, the text output's count",
          .enabled(if: PythonTools.available))
    func lintJUnit() async throws {
        let directory = try Self.brokenRules()
        let text = try await CommandLineRunner.run(["rules", "lint", "--rules", directory])
        let json = try Self.object(try await CommandLineRunner.run(["rules", "lint", "--rules", directory, "--format", "json"]).standardOutput)
        let junit = try await CommandLineRunner.run(["rules", "lint", "--rules", directory, "--format", "junit"])
        #expect(junit.status == 1)
        let reading = try await PythonTools.readJUnit(junit.standardOutput)
        let count = try Self.problemCount(text.standardError)
        #expect(reading.failures == count && reading.tests == count && reading.errors == 0 && reading.skipped == 0)
        #expect(reading.suites.map(\.name) == ["\(directory)/default.yaml"])
        #expect(reading.suites.map(\.failures).reduce(0, +) == count)
        let problems = try #require(json["problems"] as? [[String: Any]])
        #expect(reading.cases.count == problems.count)
        for (testCase, problem) in zip(reading.cases, problems) {
            let code = problem["code"] as? String ?? "?"
            #expect(testCase.name == "\(code) at \(problem["line"] as? Int ?? -1):\(problem["column"] as? Int ?? -1)")
            #expect(testCase.results.count == 1)
            #expect(testCase.results.first?.kind == "failure" && testCase.results.first?.type == code)
            #expect(testCase.results.first?.message == problem["message"] as? String)
            #expect(testCase.line == "\(problem["line"] as? Int ?? -1)")
            #expect(testCase.results.first.map { text.standardError.contains($0.text ?? "-") } == true)
        }

        let clean = try await CommandLineRunner.run(["rules", "lint", "--rules", RulesCommandTests.shipped, "--format", "junit"])
        #expect(clean.status == 0)
        let cleanReading = try await PythonTools.readJUnit(clean.standardOutput)
        #expect(cleanReading.tests == 1 && cleanReading.failures == 0 && cleanReading.errors == 0)
        #expect(cleanReading.cases.first?.name == "lint" && cleanReading.cases.first?.results.isEmpty == true)
        let version = try #require(cleanReading.suites.first?.properties["ruleSetVersion"])
        let lintText = try await CommandLineRunner.run(["rules", "lint", "--rules", RulesCommandTests.shipped])
        #expect(lintText.standardOutput.contains("version \(version),"))
        #expect((cleanReading.time ?? -1) >= 0)
    }

    @Test("test --format junit reads in junitparser: failures and errors as the text output counts them",
          .enabled(if: PythonTools.available))
    func testJUnit() async throws {
        let directory = try Self.failingCases()
        let text = try await CommandLineRunner.run(["rules", "test", "--rules", directory])
        let junit = try await CommandLineRunner.run(["rules", "test", "--rules", directory, "--format", "junit"])
        #expect(junit.status == 1)
        let reading = try await PythonTools.readJUnit(junit.standardOutput)
        let match = try #require(text.standardOutput.firstMatch(of: /(\d+) passed, (\d+) failed, (\d+) case file problem\(s\)/))
        let (passed, failed, problems) = (Int(match.1) ?? -1, Int(match.2) ?? -1, Int(match.3) ?? -1)
        #expect(reading.tests == passed + failed + problems && reading.failures == failed && reading.errors == problems)
        #expect(reading.suites.map(\.name) == ["\(directory)/tests/default.yaml", "\(directory)/tests/incomplete.yaml"])
        #expect(reading.suites.map(\.tests).reduce(0, +) == reading.tests)
        let farm = try #require(reading.cases.first { $0.name == "a farm device is reviewed" })
        #expect(farm.results.first?.kind == "failure" && farm.results.first?.message == "decision review, expected allow")
        #expect(farm.results.first?.text?.contains("fired key-farm: the device has 14 attested keys in 30 days") == true)
        #expect(text.standardOutput.contains("     fired key-farm: the device has 14 attested keys in 30 days"))
        let problem = try #require(reading.suites.last?.cases.first?.results.first)
        #expect(problem.kind == "error" && problem.type == "invalid_test_case")
        #expect(text.standardError.contains(problem.message ?? "-"))
        for passing in reading.cases where passing.name != farm.name && passing.classname?.hasSuffix("default.yaml") == true {
            #expect(passing.results.isEmpty && text.standardOutput.contains("PASS \(passing.name)"))
        }
    }

    @Test("markup and control characters in rule ids, reasons, case names and messages reach junitparser intact",
          .enabled(if: PythonTools.available))
    func escaping() async throws {
        // An id with markup and a control character is refused (invalid_field) with the id quoted in the message.
        let lint = try RulesCommandTests.brokenCopy { $0.replacingOccurrences(of: "  - id: device-flagged", with: #"  - id: "flag<&\"'\x01>ged""#) }
        let json = try Self.object(try await CommandLineRunner.run(["rules", "lint", "--rules", lint, "--format", "json"]).standardOutput)
        let message = try #require((json["problems"] as? [[String: Any]])?.first?["message"] as? String)
        #expect(message.contains("flag<&\"'\u{1}>ged"))
        let lintReading = try await PythonTools.readJUnit(try await CommandLineRunner.run(["rules", "lint", "--rules", lint, "--format", "junit"]).standardOutput)
        #expect(lintReading.cases.first?.results.first?.message == message.replacingOccurrences(of: "\u{1}", with: ""))
        #expect(lintReading.cases.first?.results.first?.text?.contains("flag<&\"'>ged") == true)

        // A case named with them fails, and a fired rule's reason carries them too.
        let directory = try RulesCommandTests.brokenCopy(edit: { yaml in
            yaml.replacingOccurrences(of: #"reason: "the device has {receipt.risk_metric} attested keys in 30 days""#,
                                      with: #"reason: "farm <&\"'\x07> {receipt.risk_metric}""#)
        }, caseEdit: { cases in
            cases.replacingOccurrences(of: "  - name: a farm device is reviewed\n", with: "  - name: \"a <farm> & \\\"device\\\"\\x01\\r\\n\\tis 'reviewed'\"\n")
                .replacingOccurrences(of: "expect: { decision: review, fired: [key-farm], score: 60 }", with: "expect: { decision: allow }")
        })
        let testJSON = try Self.object(try await CommandLineRunner.run(["rules", "test", "--rules", directory, "--format", "json"]).standardOutput)
        let failed = try #require((testJSON["cases"] as? [[String: Any]])?.first { $0["passed"] as? Bool == false })
        let name = try #require(failed["name"] as? String)
        #expect(name == "a <farm> & \"device\"\u{1}\r\n\tis 'reviewed'")
        let reading = try await PythonTools.readJUnit(try await CommandLineRunner.run(["rules", "test", "--rules", directory, "--format", "junit"]).standardOutput)
        let testCase = try #require(reading.cases.first { !$0.results.isEmpty })
        #expect(testCase.name == "a <farm> & \"device\"\r\n\tis 'reviewed'")
        #expect(testCase.results.first?.text?.contains("fired key-farm: farm <&\"'> 14") == true)
    }

    /// One command on one rule directory.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var command: String
        var directory: @Sendable () throws -> String
        var status: Int32
        var label: String
        var testDescription: String { "\(command) \(label)" }
    }

    static let scenarios: [Scenario] = [
        Scenario(command: "lint", directory: { RulesCommandTests.shipped }, status: 0, label: "clean"),
        Scenario(command: "lint", directory: brokenRules, status: 1, label: "broken"),
        Scenario(command: "lint", directory: { "/nonexistent/rules-\(UUID().uuidString)" }, status: 1, label: "missing directory"),
        Scenario(command: "test", directory: { RulesCommandTests.shipped }, status: 0, label: "passing"),
        Scenario(command: "test", directory: failingCases, status: 1, label: "failing"),
        Scenario(command: "test", directory: brokenRules, status: 1, label: "a set that does not load"),
    ]

    @Test("exit codes and standard error are the same in every format; text is the default", arguments: scenarios)
    func sameExitAndStandardError(_ scenario: Scenario) async throws {
        let directory = try scenario.directory()
        let plain = try await CommandLineRunner.run(["rules", scenario.command, "--rules", directory])
        #expect(plain.status == scenario.status, "\(plain.standardError)")
        for format in ["text", "json", "junit"] {
            let result = try await CommandLineRunner.run(["rules", scenario.command, "--rules", directory, "--format", format])
            #expect(result.status == plain.status, "\(format)")
            #expect(result.standardError == plain.standardError, "\(format)")
            if format == "text" { #expect(result.standardOutput == plain.standardOutput) }
        }
        let unknown = try await CommandLineRunner.run(["rules", scenario.command, "--rules", directory, "--format", "xml"])
        #expect(unknown.status == 2 && unknown.standardError.contains("--format"), "a usage error")
    }
}
