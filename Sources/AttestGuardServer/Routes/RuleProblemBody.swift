import RiskRules

/// One problem of a rejected rule set or gateway policy set, at its file, line and column.
struct RuleProblemBody: Encodable {
    var code: String
    var file: String
    var line: Int
    var column: Int
    var message: String
    var hint: String?

    init(_ problem: RuleSetError) {
        code = problem.code.rawValue
        file = problem.file
        line = problem.line
        column = problem.column
        message = problem.message
        hint = problem.hint
    }
}
