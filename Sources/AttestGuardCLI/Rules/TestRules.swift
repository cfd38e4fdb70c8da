import ArgumentParser
import Foundation
import RiskRules

/// `attestguard rules test --rules DIR`: runs the cases in `DIR/tests/*.yaml` against the rule set. Exit 0 when every
/// case passes, 1 otherwise (or when the set or a case file has problems), in every `--format`.
struct TestRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "test", abstract: "Run a rule set's test cases (DIR/tests/*.yaml).")

    @OptionGroup var ruleDirectory: RuleDirectoryOption

    @Argument(help: ArgumentHelp("The rule directory (deprecated: use --rules).", visibility: .hidden))
    var directory: String?

    func validate() throws {
        try ruleDirectory.validate(positional: directory)
    }

    @Option(help: "What standard output carries: text, json (docs/schemas/rules-test-output.schema.json) or junit. Problems also go to standard error as text.")
    var format: RulesOutputFormat = .text

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let rules = try ruleDirectory.resolve(command: "test", positional: directory)
        defer { rules.remove() }
        let ruleSet: RuleSet
        do {
            ruleSet = try RuleSetLoader.load(directory: rules.path)
        } catch {
            try write(TestRecord(directory: rules.name, failure: error), since: start, on: clock)
            throw error.reported("the rule set")
        }
        let report = RuleTestCases.run(ruleSet, directory: rules.path)
        if format == .text {
            printText(report, directory: rules.name)
        } else {
            try write(TestRecord(directory: rules.name, ruleSet: ruleSet, report: report), since: start, on: clock)
            for error in report.errors { FileHandle.standardError.write(Data((error.description + "\n").utf8)) }
        }
        guard report.passed else { throw ExitCode(1) }
    }

    /// The JSON or JUnit document; nothing in text, where a set that did not load shows only on standard error.
    private func write(_ record: TestRecord, since start: ContinuousClock.Instant, on clock: ContinuousClock) throws {
        switch format {
        case .text: break
        case .json: print(try RulesOutputFormat.json(record))
        case .junit: print(JUnitReport(test: record, time: clock.now - start).xml, terminator: "")
        }
    }

    private func printText(_ report: RuleTestCases.Report, directory: String) {
        for result in report.results {
            if result.passed {
                print("PASS \(result.name)")
            } else {
                print("FAIL \(result.name) (\(result.file):\(result.line)): \(result.failures.joined(separator: "; "))")
                for fired in result.evaluation.fired {
                    print("     fired \(fired.id): \(fired.reason)")
                    for action in fired.actions ?? [] { print("       then \(action)") }
                }
            }
        }
        for error in report.errors { FileHandle.standardError.write(Data((error.description + "\n").utf8)) }
        let failed = report.results.filter { !$0.passed }.count
        print("\(report.results.count - failed) passed, \(failed) failed" + (report.errors.isEmpty ? "" : ", \(report.errors.count) case file problem(s)"))
        if report.results.isEmpty, report.errors.isEmpty {
            print("no cases in \(directory)/tests")
        }
    }
}
