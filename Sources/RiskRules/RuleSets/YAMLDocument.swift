package import Yams

/// A parsed YAML file that remembers where each node stands, so that rule-set problems can name a line and a
/// column, including inside an expression.
package struct YAMLDocument {
    package let path: String
    let text: String
    package let root: Node?
    private let lines: [Substring]

    /// Parses `text`; a YAML syntax error (or a duplicated key) becomes a ``RuleSetError``.
    package init(path: String, text: String) throws(RuleSetError) {
        self.path = path
        self.text = text
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        do {
            self.root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.error(error, path: path)
        } catch {
            throw RuleSetError(.yamlSyntax, file: path, line: 0, column: 0, "not YAML: \(error)")
        }
    }

    /// An error at a node.
    package func error(_ code: RuleSetError.Code, at node: Node?, _ message: String, hint: String? = nil) -> RuleSetError {
        let mark = node?.mark
        return RuleSetError(code, file: path, line: mark?.line ?? 0, column: mark?.column ?? 0, message, hint: hint)
    }

    /// An expression error at its place inside a scalar: exact for a one-line plain or quoted scalar, otherwise
    /// found by searching the source from the scalar on for the offending text.
    func error(_ error: ExpressionError, in node: Node, expression: String) -> RuleSetError {
        let (line, column) = location(of: error.range, in: expression, node: node)
        return RuleSetError(RuleSetError.Code(error.code), file: path, line: line, column: column, error.message, hint: error.hint)
    }

    private func location(of range: Range<Int>, in expression: String, node: Node) -> (Int, Int) {
        guard let mark = node.mark else { return (0, 0) }
        let utf8 = Array(expression.utf8)
        let start = min(range.lowerBound, utf8.count)
        let prefix = String(decoding: utf8[..<start], as: UTF8.self)
        if case .scalar(let scalar) = node, !expression.contains("\n") {
            switch scalar.style {
            case .plain, .any:
                return (mark.line, mark.column + prefix.count)
            case .doubleQuoted where !expression.contains("\\") && !expression.contains("\""),
                 .singleQuoted where !expression.contains("'"):
                // No escapes, so the text stands in the file as it is, after the opening quote.
                return (mark.line, mark.column + 1 + prefix.count)
            default:
                break
            }
        }
        let needle = String(decoding: utf8[start..<min(max(range.upperBound, start), utf8.count)], as: UTF8.self)
        if !needle.isEmpty {
            for index in max(mark.line - 1, 0)..<lines.count {
                if let found = lines[index].range(of: needle) {
                    return (index + 1, lines[index].distance(from: lines[index].startIndex, to: found.lowerBound) + 1)
                }
            }
        }
        return (mark.line, mark.column)
    }

    private static func error(_ error: YamlError, path: String) -> RuleSetError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return RuleSetError(.yamlSyntax, file: path, line: mark.line, column: mark.column, "YAML: \(problem)",
                                hint: "check indentation and quoting; an expression containing `: ` or starting with a quote or `[` needs quotes around it")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return RuleSetError(.duplicateSetting, file: path, line: context.mark.line, column: context.mark.column,
                                "a key is given twice: \(duplicates.prefix(10).map(RuleSetLimits.excerpt).joined(separator: ", "))")
        default:
            return RuleSetError(.yamlSyntax, file: path, line: 0, column: 0, "YAML: \(error)")
        }
    }
}
