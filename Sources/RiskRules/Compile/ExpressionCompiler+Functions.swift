import AttestVocabulary

/// The functions of the rule language:
/// - `missing(x)`: true when `x` has no value (never missing itself);
/// - `coalesce(x, fallback)`: `x`, or `fallback` when `x` is missing (same type);
/// - `age(timestamp)`: the duration from the timestamp to the evaluation instant;
/// - `list("name")`: a named list from the rule set's `lists:` (for `in`): a file's, or a run-time list's as the
///   evaluation's ``ManagedListSnapshot`` holds it;
/// - `min(a, b)`, `max(a, b)`: of two numbers or two durations (missing if either is);
/// - `lower(s)`: a string in lower case;
/// - `version_below(v, "4.2")`: a bundle version below a literal one (``DottedVersion``: number by number, `4.10`
///   above `4.9`); missing when `v` is missing or not a version. A function rather than `<` on strings, which
///   compares text (`"4.10" < "4.9"`), and rather than a version type, which every signal and literal would need.
extension ExpressionCompiler {
    static let functionNames = ["missing", "coalesce", "age", "list", "min", "max", "lower", "version_below"]

    mutating func call(_ name: String, _ arguments: [Expression.Node], range: Range<Int>) throws(ExpressionError) -> CompiledExpression {
        switch name {
        case "missing":
            let argument = try one(arguments, of: name, range: range)
            let value = try compile(argument)
            guard !value.isList else { throw ExpressionError(.typeMismatch, "missing() takes a value, not a list", at: argument.range) }
            return .flag(value.isMissing)
        case "coalesce":
            let (first, second) = try two(arguments, of: name, range: range)
            return try coalesce(try compile(first), try compile(second), range: range)
        case "age":
            let argument = try one(arguments, of: name, range: range)
            let value = try compile(argument)
            guard value.type == .timestamp, !value.isList, case .numeric(let evaluate) = value.form else {
                throw ExpressionError(.typeMismatch, "age() takes a timestamp, but this is \(value.typeDescription)", at: argument.range,
                                      hint: value.type == .duration ? "this is already a duration: compare it directly" : nil)
            }
            return .numeric(.duration) { values in evaluate(values).map { values.now - $0 } }
        case "list":
            let argument = try one(arguments, of: name, range: range)
            guard case .string(let listName) = argument.expression else {
                throw ExpressionError(.wrongArguments, "list() takes the list's name as a string literal", at: argument.range)
            }
            guard let source = lists[listName] else {
                let hint: String
                if let near = SignalSchema.nearest(listName, in: lists.keys.sorted()) {
                    hint = "did you mean \"\(near)\"?"
                } else {
                    hint = "declare it under `lists:` with the path of a file of one item per line, or `{ managed: true }`"
                }
                throw ExpressionError(.unknownList, "no list named \"\(listName)\"", at: argument.range, hint: hint)
            }
            let contains: @Sendable (String, SignalValues) -> Bool
            switch source {
            case .file(let contents):
                contains = { text, values in contents.contains(text, at: values.now) }
            case .managed(let kind):
                contains = { text, values in values.lists.contains(text, list: listName, kind: kind, at: values.now) }
            }
            return CompiledExpression(type: .string, isList: true, form: .membership(name: listName, contains: contains))
        case "min", "max":
            let (first, second) = try two(arguments, of: name, range: range)
            let a = try compile(first)
            let b = try compile(second)
            guard a.type == b.type, a.type == .number || a.type == .duration, case .numeric(let x) = a.form, case .numeric(let y) = b.form else {
                throw ExpressionError(.typeMismatch, "\(name)() takes two numbers or two durations, not \(a.typeDescription) and \(b.typeDescription)", at: range)
            }
            let takeSmaller = name == "min"
            return .numeric(a.type) { values in
                guard let p = x(values), let q = y(values) else { return nil }
                return takeSmaller ? Swift.min(p, q) : Swift.max(p, q)
            }
        case "lower":
            let argument = try one(arguments, of: name, range: range)
            let value = try compile(argument)
            guard case .text(let evaluate) = value.form else {
                throw ExpressionError(.typeMismatch, "lower() takes a string, not \(value.typeDescription)", at: argument.range)
            }
            return .text { values in evaluate(values)?.lowercased() }
        case "version_below":
            let (first, second) = try two(arguments, of: name, range: range)
            let value = try compile(first)
            guard case .text(let evaluate) = value.form else {
                throw ExpressionError(.typeMismatch, "version_below() compares a string, not \(value.typeDescription)", at: first.range)
            }
            guard case .string(let literal) = second.expression else {
                throw ExpressionError(.wrongArguments, "version_below() takes the version to compare with as a string literal", at: second.range)
            }
            guard let bound = DottedVersion(literal) else {
                throw ExpressionError(
                    .wrongArguments, "\"\(literal)\" is not a bundle version", at: second.range,
                    hint: "write dot-separated whole numbers, such as \"4.2\" or \"4.2.1\"")
            }
            return .flag { values in evaluate(values).flatMap(DottedVersion.init).map { $0 < bound } }
        default:
            let hint = SignalSchema.nearest(name, in: Self.functionNames).map { "did you mean `\($0)`?" }
            throw ExpressionError(.unknownFunction, "unknown function `\(name)`", at: range,
                                  hint: hint ?? "functions: \(Self.functionNames.joined(separator: ", "))")
        }
    }

    private func coalesce(_ a: CompiledExpression, _ b: CompiledExpression, range: Range<Int>) throws(ExpressionError) -> CompiledExpression {
        switch (a.form, b.form) {
        case (.numeric(let x), .numeric(let y)) where a.type == b.type:
            return .numeric(a.type) { values in x(values) ?? y(values) }
        case (.text(let x), .text(let y)):
            return .text { values in x(values) ?? y(values) }
        case (.flag(let x), .flag(let y)):
            return .flag { values in x(values) ?? y(values) }
        default:
            throw ExpressionError(.typeMismatch, "coalesce() takes two values of one type, not \(a.typeDescription) and \(b.typeDescription)", at: range)
        }
    }

    private func one(_ arguments: [Expression.Node], of name: String, range: Range<Int>) throws(ExpressionError) -> Expression.Node {
        guard arguments.count == 1 else {
            throw ExpressionError(.wrongArguments, "\(name)() takes 1 argument, not \(arguments.count)", at: range)
        }
        return arguments[0]
    }

    private func two(_ arguments: [Expression.Node], of name: String, range: Range<Int>) throws(ExpressionError) -> (Expression.Node, Expression.Node) {
        guard arguments.count == 2 else {
            throw ExpressionError(.wrongArguments, "\(name)() takes 2 arguments, not \(arguments.count)", at: range)
        }
        return (arguments[0], arguments[1])
    }
}
