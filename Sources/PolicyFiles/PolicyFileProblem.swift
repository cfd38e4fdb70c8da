/// One problem in a policy file (a rule file, a list, a gateway policy file), at a file, line and column, with a
/// stable code and, where possible, a hint. A rule set or a gateway policy with any of these never loads, so a
/// running server keeps the one it has. The message and the hint are at most ``PolicyFileLimits/messageBytes`` each:
/// they quote the file only in short excerpts.
public struct PolicyFileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes: those of the rule language's expressions (syntax, unknown names, types), and those of the files
    /// around them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case syntax = "syntax_error"
        case unknownSignal = "unknown_signal"
        case unknownFunction = "unknown_function"
        case unknownList = "unknown_list"
        case typeMismatch = "type_mismatch"
        case wrongArguments = "wrong_arguments"
        case yamlSyntax = "yaml_syntax"
        case unknownField = "unknown_field"
        case invalidField = "invalid_field"
        case missingField = "missing_field"
        case duplicateRule = "duplicate_rule"
        case duplicateSetting = "duplicate_setting"
        case unreadableFile = "unreadable_file"
        case noRuleFiles = "no_rule_files"
        case invalidTestCase = "invalid_test_case"
        /// A rule id, name, path or text longer than its bound in bytes.
        case tooLong = "too_long"
        /// A list path that is absolute or resolves (symlinks included) outside the rule directory.
        case pathOutsideDirectory = "path_outside_directory"
        /// A rule or list file that is not a regular file (a FIFO, socket, device or directory): never opened.
        case notRegularFile = "not_regular_file"
        /// More problems than ``PolicyFileLimits/problems``: the rest are counted, not listed.
        case tooManyProblems = "too_many_problems"
    }

    /// How grave a problem is. Every problem today is an error: any one keeps the set from loading.
    public enum Severity: String, Sendable, Hashable, CaseIterable {
        case error
    }

    public var code: Code
    /// The file, as given to the loader (relative to the working directory or absolute).
    public var file: String
    /// 1-based; 0 when the problem is the file as a whole.
    public var line: Int
    public var column: Int
    public var message: String
    public var hint: String?
    /// Always ``Severity/error``: a rule set with any problem does not load.
    public var severity: Severity { .error }

    public init(_ code: Code, file: String, line: Int, column: Int, _ message: String, hint: String? = nil) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = PolicyFileLimits.truncated(message, to: PolicyFileLimits.messageBytes)
        self.hint = hint.map { PolicyFileLimits.truncated($0, to: PolicyFileLimits.messageBytes) }
    }

    /// `file:line:column: error[code]: message` and, on the next line, `  hint: ...`.
    public var description: String {
        let place = line > 0 ? "\(file):\(line):\(column)" : file
        let first = "\(place): \(severity.rawValue)[\(code.rawValue)]: \(message)"
        return hint.map { first + "\n  hint: " + $0 } ?? first
    }
}

/// Why a rule set or a gateway policy did not load: the problems found, in file order; past ``PolicyFileLimits/problems`` of them, the
/// rest are counted in one last `too_many_problems`, so that a broken file cannot flood a log or a response.
public struct PolicyFileLoadFailure: Error, Sendable, CustomStringConvertible {
    public var errors: [PolicyFileProblem]

    public init(errors: [PolicyFileProblem]) {
        guard errors.count > PolicyFileLimits.problems else {
            self.errors = errors
            return
        }
        let rest = errors[PolicyFileLimits.problems]
        self.errors = Array(errors.prefix(PolicyFileLimits.problems)) + [PolicyFileProblem(
            .tooManyProblems, file: rest.file, line: rest.line, column: rest.column,
            "\(errors.count - PolicyFileLimits.problems) more problems from here on are not listed", hint: "fix these and load again"
        )]
    }

    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
