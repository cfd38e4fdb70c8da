import PolicyFiles
import Yams

extension YAMLDocument {
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
}
