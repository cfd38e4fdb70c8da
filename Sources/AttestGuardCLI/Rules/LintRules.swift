import ArgumentParser
import RiskRules

/// `attestguard rules lint --rules DIR`: loads a rule set the way the server does and prints every problem at its
/// file, line and column. Exit 0 clean, 1 with problems, in every `--format`.
struct LintRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: "Check a rule set: syntax, signals, types, lists.")

    @OptionGroup var ruleDirectory: RuleDirectoryOption

    @Argument(help: ArgumentHelp("The rule directory (deprecated: use --rules).", visibility: .hidden))
    var directory: String?

    func validate() throws {
        try ruleDirectory.validate(positional: directory)
    }

    @Option(help: "What standard output carries: text, json (docs/schemas/rules-lint-output.schema.json) or junit. Problems also go to standard error as text.")
    var format: RulesOutputFormat = .text

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let rules = try ruleDirectory.resolve(command: "lint", positional: directory)
        defer { rules.remove() }
        let directory = rules.name
        let loaded: Result<RuleSet, RuleSetLoadFailure>
        do {
            loaded = .success(try RuleSetLoader.load(directory: rules.path))
        } catch {
            loaded = .failure(error)
        }
        switch (format, loaded) {
        case (.text, .success(let ruleSet)):
            print("\(directory): \(ruleSet.rules.count) rules, version \(ruleSet.version), thresholds review \(ruleSet.thresholds.review) / deny \(ruleSet.thresholds.deny)")
            print("reads \(ruleSet.layout.namesRead.count) signals: \(ruleSet.layout.namesRead.joined(separator: ", "))")
        case (.text, .failure):
            break
        case (.json, _):
            print(try RulesOutputFormat.json(LintRecord(directory: directory, loaded: loaded)))
        case (.junit, _):
            print(JUnitReport(lint: LintRecord(directory: directory, loaded: loaded), time: clock.now - start).xml, terminator: "")
        }
        if case .failure(let failure) = loaded { throw failure.reported("the rule set") }
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
