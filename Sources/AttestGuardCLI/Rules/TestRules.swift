import ArgumentParser
import Foundation
import RiskRules

/// `attestguard rules test DIR`: runs the cases in `DIR/tests/*.yaml` against the rule set. Exit 0 when every
/// case passes, 1 otherwise (or when the set or a case file has problems).
struct TestRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "test", abstract: "Run a rule set's test cases (DIR/tests/*.yaml).")

    @Argument(help: "The rule directory.")
    var directory: String

    func run() throws {
        let ruleSet = try RuleSetArgument.load(directory)
        let report = RuleTestCases.run(ruleSet, directory: directory)
        for result in report.results {
            if result.passed {
                print("PASS \(result.name)")
            } else {
                print("FAIL \(result.name) (\(result.file):\(result.line)): \(result.failures.joined(separator: "; "))")
                for fired in result.evaluation.fired {
                    print("     fired \(fired.id): \(fired.reason)")
                }
            }
        }
        for error in report.errors { FileHandle.standardError.write(Data((error.description + "\n").utf8)) }
        let failed = report.results.filter { !$0.passed }.count
        print("\(report.results.count - failed) passed, \(failed) failed" + (report.errors.isEmpty ? "" : ", \(report.errors.count) case file problem(s)"))
        if report.results.isEmpty, report.errors.isEmpty {
            print("no cases in \(directory)/tests")
        }
        guard report.passed else { throw ExitCode(1) }
    }
}
