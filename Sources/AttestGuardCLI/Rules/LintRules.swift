import ArgumentParser
import RiskRules

/// `attestguard rules lint DIR`: loads a rule set the way the server does and prints every problem at its file,
/// line and column. Exit 0 clean, 1 with problems.
struct LintRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: "Check a rule set: syntax, signals, types, lists.")

    @Argument(help: "The rule directory (its *.yaml files; lists relative to it).")
    var directory: String

    func run() throws {
        let ruleSet = try RuleSetArgument.load(directory)
        print("\(directory): \(ruleSet.rules.count) rules, version \(ruleSet.version), thresholds review \(ruleSet.thresholds.review) / deny \(ruleSet.thresholds.deny)")
        print("reads \(ruleSet.layout.names.count) signals: \(ruleSet.layout.names.joined(separator: ", "))")
    }
}

/// Loading a rule set for a command: problems go to standard error and end the command with exit code 1.
enum RuleSetArgument {
    static func load(_ directory: String) throws -> RuleSet {
        do {
            return try RuleSetLoader.load(directory: directory)
        } catch {
            throw error.reported("the rule set")
        }
    }
}
