import RiskRules
import PolicyFiles

/// What `rules lint --format json` prints (`docs/schemas/rules-lint-output.schema.json`): the rule files read, the set
/// that loaded or null, and every problem in file order.
struct LintRecord: Encodable {
    /// The counts a CI step reports.
    struct Summary: Encodable {
        var files: Int
        var problems: Int
    }

    var directory: String
    /// The rule files (`*.yaml`, `*.yml` directly in the directory), in name order, as the loader reads them.
    var files: [String]
    var ruleSet: RuleSetRecord?
    var problems: [ProblemRecord]

    init(directory: String, loaded: Result<RuleSet, RuleSetLoadFailure>) {
        self.directory = directory
        files = (try? PolicyFileAccess.yamlFilePaths(in: directory)) ?? []
        switch loaded {
        case .success(let ruleSet):
            self.ruleSet = RuleSetRecord(ruleSet)
            problems = []
        case .failure(let failure):
            ruleSet = nil
            problems = failure.errors.map(ProblemRecord.init)
        }
    }

    var passed: Bool { problems.isEmpty }
    var summary: Summary { Summary(files: files.count, problems: problems.count) }

    private enum CodingKeys: String, CodingKey {
        case formatVersion, command, directory, passed, files, ruleSet, problems, summary
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RulesOutputFormat.jsonFormatVersion, forKey: .formatVersion)
        try container.encode(LintRules.configuration.commandName, forKey: .command)
        try container.encode(directory, forKey: .directory)
        try container.encode(passed, forKey: .passed)
        try container.encode(files, forKey: .files)
        try container.encode(ruleSet, forKey: .ruleSet)
        try container.encode(problems, forKey: .problems)
        try container.encode(summary, forKey: .summary)
    }
}
