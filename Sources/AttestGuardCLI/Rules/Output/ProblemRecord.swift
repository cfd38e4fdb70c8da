import RiskRules

/// One rule-set problem as the JSON outputs write it (`$defs/problem` in `docs/schemas/`): every field present, `hint`
/// null when there is none.
struct ProblemRecord: Encodable {
    var code: String
    var severity: String
    var file: String
    var line: Int
    var column: Int
    var message: String
    var hint: String?
    /// The text output's form, `file:line:column: error[code]: message` and the hint: the JUnit failure's body.
    var description: String

    init(_ error: RuleSetError) {
        code = error.code.rawValue
        severity = error.severity.rawValue
        file = error.file
        line = error.line
        column = error.column
        message = error.message
        hint = error.hint
        description = error.description
    }

    private enum CodingKeys: String, CodingKey {
        case code, severity, file, line, column, message, hint
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(severity, forKey: .severity)
        try container.encode(file, forKey: .file)
        try container.encode(line, forKey: .line)
        try container.encode(column, forKey: .column)
        try container.encode(message, forKey: .message)
        try container.encode(hint, forKey: .hint)
    }
}
