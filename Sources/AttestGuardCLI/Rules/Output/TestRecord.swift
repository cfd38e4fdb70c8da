import RiskRules

/// What `rules test --format json` prints (`docs/schemas/rules-test-output.schema.json`): the set the cases ran
/// against (null when it did not load), every case in file and case order with what it expected and what came out,
/// and the problems of the set or of the case files.
struct TestRecord: Encodable {
    /// What a case expected; `fired`, `score` and `actions` are null when the case leaves them open.
    struct Expected: Encodable {
        var decision: String
        var fired: [String]?
        var score: Double?
        var actions: [String]?

        private enum CodingKeys: String, CodingKey { case decision, fired, score, actions }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(decision, forKey: .decision)
            try container.encode(fired, forKey: .fired)
            try container.encode(score, forKey: .score)
            try container.encode(actions, forKey: .actions)
        }
    }

    /// A rule that fired in a case, with its rendered reason and its actions as they read with the case's values;
    /// `decide` is null for a rule that only scores.
    struct Fired: Encodable {
        var id: String
        var score: Double
        var decide: String?
        var reason: String
        var actions: [String]

        private enum CodingKeys: String, CodingKey { case id, score, decide, reason, actions }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(score, forKey: .score)
            try container.encode(decide, forKey: .decide)
            try container.encode(reason, forKey: .reason)
            try container.encode(actions, forKey: .actions)
        }
    }

    /// What the rule set decided on a case's signals; `decidedBy` is null when the score decided.
    struct Actual: Encodable {
        var decision: String
        var score: Double
        var decidedBy: String?
        var fired: [Fired]

        private enum CodingKeys: String, CodingKey { case decision, score, decidedBy, fired }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(decision, forKey: .decision)
            try container.encode(score, forKey: .score)
            try container.encode(decidedBy, forKey: .decidedBy)
            try container.encode(fired, forKey: .fired)
        }
    }

    /// One case: `failures` are what differed, as the text output's FAIL line lists them, and `message` is that
    /// line's text (`failures` joined with `; `), null when the case passed.
    struct Case: Encodable {
        var file: String
        var line: Int
        var name: String
        var passed: Bool
        var expected: Expected
        var actual: Actual
        var failures: [String]
        var message: String?

        init(_ result: RuleTestCases.Result) {
            file = result.file
            line = result.line
            name = result.name
            passed = result.passed
            expected = Expected(
                decision: result.expected.decision.rawValue, fired: result.expected.fired, score: result.expected.score, actions: result.expected.actions
            )
            let evaluation = result.evaluation
            actual = Actual(
                decision: evaluation.decision.rawValue, score: evaluation.score, decidedBy: evaluation.decidedBy,
                fired: evaluation.fired.map {
                    Fired(id: $0.id, score: $0.score, decide: $0.decide?.rawValue, reason: $0.reason, actions: ($0.actions ?? []).map(\.description))
                }
            )
            failures = result.failures
            message = result.passed ? nil : result.failures.joined(separator: "; ")
        }

        private enum CodingKeys: String, CodingKey { case file, line, name, passed, expected, actual, failures, message }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(line, forKey: .line)
            try container.encode(name, forKey: .name)
            try container.encode(passed, forKey: .passed)
            try container.encode(expected, forKey: .expected)
            try container.encode(actual, forKey: .actual)
            try container.encode(failures, forKey: .failures)
            try container.encode(message, forKey: .message)
        }
    }

    /// The counts of the text output's last line: `passed` and `failed` cases, and `problems` (of the case files, or
    /// of the set when it did not load).
    struct Summary: Encodable {
        var cases: Int
        var passed: Int
        var failed: Int
        var problems: Int
    }

    var directory: String
    var ruleSet: RuleSetRecord?
    var cases: [Case]
    var problems: [ProblemRecord]

    /// The cases of a set that loaded, and the problems of its case files.
    init(directory: String, ruleSet: RuleSet, report: RuleTestCases.Report) {
        self.directory = directory
        self.ruleSet = RuleSetRecord(ruleSet)
        cases = report.results.map(Case.init)
        problems = report.errors.map(ProblemRecord.init)
    }

    /// A set that did not load: no case ran.
    init(directory: String, failure: RuleSetLoadFailure) {
        self.directory = directory
        ruleSet = nil
        cases = []
        problems = failure.errors.map(ProblemRecord.init)
    }

    var passed: Bool { problems.isEmpty && cases.allSatisfy(\.passed) }

    var summary: Summary {
        let failed = cases.filter { !$0.passed }.count
        return Summary(cases: cases.count, passed: cases.count - failed, failed: failed, problems: problems.count)
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion, command, directory, passed, ruleSet, cases, problems, summary
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RulesOutputFormat.jsonFormatVersion, forKey: .formatVersion)
        try container.encode(TestRules.configuration.commandName, forKey: .command)
        try container.encode(directory, forKey: .directory)
        try container.encode(passed, forKey: .passed)
        try container.encode(ruleSet, forKey: .ruleSet)
        try container.encode(cases, forKey: .cases)
        try container.encode(problems, forKey: .problems)
        try container.encode(summary, forKey: .summary)
    }
}
