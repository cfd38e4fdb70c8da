import AttestGuardRuntime
import Foundation

/// What `attestguard config check` prints: on standard output the verdict and, when valid, the summary `serve` logs
/// (mode, listener, apps, API key names, the Apple hosts used, the store); on standard error each problem and
/// warning with its key. Never a secret: the summary and the problems name files and variables, not their contents.
struct ConfigurationCheckReport: Encodable {
    /// One problem or warning.
    struct Finding: Encodable {
        var code: String
        var key: String
        var problem: String
        var suggestion: String?

        init(_ error: ConfigurationError) {
            code = error.code.description
            key = error.key
            problem = error.problem
            suggestion = error.suggestion
        }
    }

    var file: String
    var valid: Bool
    var problems: [Finding]
    var warnings: [Finding]
    /// The start-up summary, when valid.
    var summary: [String]?

    init(file: String, check: ConfigurationCheck) {
        self.file = file
        valid = check.problems.isEmpty
        problems = check.problems.map(Finding.init)
        warnings = check.warnings.map(Finding.init)
        summary = check.configuration?.summary
    }

    /// The verdict line, then the summary indented.
    var text: String {
        guard valid else { return "\(file): \(problems.count) problem\(problems.count == 1 ? "" : "s")\n" }
        return "\(file): OK\n" + (summary ?? []).map { "  \($0)\n" }.joined()
    }

    /// Each problem, then each warning, one a line.
    var findings: String {
        func line(_ finding: Finding, _ label: String) -> String {
            "\(label): \(finding.key): \(finding.problem)" + (finding.suggestion.map { "; did you mean \($0)?" } ?? "") + "\n"
        }
        return problems.map { line($0, "error") }.joined() + warnings.map { line($0, "warning") }.joined()
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
