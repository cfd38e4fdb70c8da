/// How `rules lint` and `rules test` map onto JUnit (`docs/analysts.md`, "Risk rules"): a `<testsuite>` per file, in path order,
/// and in it a `<testcase>` per problem (at its line, named `code at line:column`) and, for `test`, per case (named as
/// the case). A lint problem is a `<failure>`; a rule file without problems is one passing case named `lint`. A case
/// whose expectation does not hold is a `<failure>`; a problem of the set or of a case file, which keeps cases from
/// running, is an `<error>`. Each suite's `ruleSetVersion` property names the set that loaded.
extension JUnitReport {
    /// The name of the passing case of a rule file without problems.
    static let cleanFileCase = "lint"

    init(lint record: LintRecord, time: Duration) {
        var byFile = Dictionary(uniqueKeysWithValues: record.files.map { ($0, [TestCase]()) })
        for problem in record.problems {
            byFile[problem.file, default: []].append(Self.testCase(problem, kind: .failure))
        }
        let suites = byFile.keys.sorted().map { file in
            let cases = byFile[file] ?? []
            return Suite(
                name: file, properties: Self.properties(record.ruleSet),
                cases: cases.isEmpty ? [TestCase(name: Self.cleanFileCase, classname: file, file: file)] : cases
            )
        }
        self.init(name: "attestguard rules \(LintRules.configuration.commandName ?? "") \(record.directory)", suites: suites, time: time)
    }

    init(test record: TestRecord, time: Duration) {
        var byFile: [String: [TestCase]] = [:]
        for testCase in record.cases {
            byFile[testCase.file, default: []].append(Self.testCase(testCase))
        }
        for problem in record.problems {
            byFile[problem.file, default: []].append(Self.testCase(problem, kind: .error))
        }
        let suites = byFile.keys.sorted().map { file in
            // Cases and problems by line, each in its own order where lines are equal.
            let cases = (byFile[file] ?? []).enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
            return Suite(name: file, properties: Self.properties(record.ruleSet), cases: cases.map(\.element))
        }
        self.init(name: "attestguard rules \(TestRules.configuration.commandName ?? "") \(record.directory)", suites: suites, time: time)
    }

    private static func properties(_ ruleSet: RuleSetRecord?) -> [(name: String, value: String)] {
        ruleSet.map { [("ruleSetVersion", $0.version)] } ?? []
    }

    private static func testCase(_ problem: ProblemRecord, kind: Outcome.Kind) -> TestCase {
        TestCase(
            name: problem.line > 0 ? "\(problem.code) at \(problem.line):\(problem.column)" : problem.code,
            classname: problem.file, file: problem.file, line: problem.line > 0 ? problem.line : nil,
            outcome: Outcome(kind: kind, message: problem.message, type: problem.code, details: problem.description)
        )
    }

    /// A failing case's text is the text output's: what differed, then each rule that fired with its reason.
    private static func testCase(_ testCase: TestRecord.Case) -> TestCase {
        let outcome = testCase.message.map { message in
            let lines = testCase.failures + testCase.actual.fired.map { "fired \($0.id): \($0.reason)" }
            return Outcome(kind: .failure, message: message, type: nil, details: lines.joined(separator: "\n"))
        }
        return TestCase(name: testCase.name, classname: testCase.file, file: testCase.file, line: testCase.line, outcome: outcome)
    }
}
