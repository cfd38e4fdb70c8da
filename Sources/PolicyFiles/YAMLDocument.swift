package import Yams

/// A parsed YAML file that remembers where each node stands, so that a policy file's problems can name a line and
/// a column, including inside an expression.
package struct YAMLDocument {
    package let path: String
    package let text: String
    package let root: Node?
    /// The file's lines, for finding text a node holds.
    package let lines: [Substring]

    /// Parses `text`; a YAML syntax error (or a duplicated key) becomes a ``PolicyFileProblem``.
    package init(path: String, text: String) throws(PolicyFileProblem) {
        self.path = path
        self.text = text
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        do {
            self.root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.error(error, path: path)
        } catch {
            throw PolicyFileProblem(.yamlSyntax, file: path, line: 0, column: 0, "not YAML: \(error)")
        }
    }

    /// An error at a node.
    package func error(_ code: PolicyFileProblem.Code, at node: Node?, _ message: String, hint: String? = nil) -> PolicyFileProblem {
        let mark = node?.mark
        return PolicyFileProblem(code, file: path, line: mark?.line ?? 0, column: mark?.column ?? 0, message, hint: hint)
    }

    private static func error(_ error: YamlError, path: String) -> PolicyFileProblem {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return PolicyFileProblem(.yamlSyntax, file: path, line: mark.line, column: mark.column, "YAML: \(problem)",
                                hint: "check indentation and quoting; an expression containing `: ` or starting with a quote or `[` needs quotes around it")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return PolicyFileProblem(.duplicateSetting, file: path, line: context.mark.line, column: context.mark.column,
                                "a key is given twice: \(duplicates.prefix(10).map(PolicyFileLimits.excerpt).joined(separator: ", "))")
        default:
            return PolicyFileProblem(.yamlSyntax, file: path, line: 0, column: 0, "YAML: \(error)")
        }
    }
}
