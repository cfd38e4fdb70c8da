import AttestVocabulary
/// Type-checks an expression against the signal schema and compiles it to closures, recording every signal it
/// reads in the rule set's ``SignalLayout``.
///
/// Missing values (a key with no receipt yet, an attribute the gateway did not send) propagate: arithmetic,
/// comparisons and `in` with a missing operand are missing; `and`/`or`/`not` use three-valued logic (`false and
/// missing` is false, `true or missing` is true, otherwise missing); `missing(x)` is never missing; and
/// `coalesce(x, fallback)` replaces a missing `x`. A rule fires only when its condition is true.
struct ExpressionCompiler {
    var layout: SignalLayout
    /// Declared custom attributes.
    let attributes: [String: SignalType]
    /// Where a named list's entries come from.
    enum ListSource {
        /// A list file, read with the rule set.
        case file(ListContents)
        /// A run-time list of this kind, looked up in the evaluation's ``ManagedListSnapshot``.
        case managed(ListKind)
    }

    /// Named lists (`list("testers")`).
    let lists: [String: ListSource]

    /// Compiles a rule condition, which must be a boolean.
    mutating func condition(_ node: Expression.Node) throws(ExpressionError) -> CompiledExpression.Evaluate<Bool> {
        let compiled = try compile(node)
        guard case .flag(let evaluate) = compiled.form else {
            throw ExpressionError(.typeMismatch, "a condition must be true or false, but this is \(compiled.typeDescription)", at: node.range,
                                  hint: "compare it, e.g. `... > 0` or `... == \"value\"`")
        }
        return evaluate
    }

    mutating func compile(_ node: Expression.Node) throws(ExpressionError) -> CompiledExpression {
        switch node.expression {
        case .number(let value): return .numeric(.number) { _ in value }
        case .duration(let seconds): return .numeric(.duration) { _ in seconds }
        case .string(let text): return .text { _ in text }
        case .bool(let flag): return .flag { _ in flag }
        case .list(let items): return try list(items, range: node.range)
        case .signal(let name): return try signal(name, range: node.range)
        case .call(let name, let arguments): return try call(name, arguments, range: node.range)
        case .unary(let op, let operand): return try unary(op, operand)
        case .binary(let op, let left, let right):
            switch op {
            case .and, .or: return try logical(op, left, right)
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return try ComparisonCompiler.compare(op, try compile(left), try compile(right), left: left, right: right)
            case .in, .notIn: return try membership(negated: op == .notIn, left, right)
            case .plus, .minus, .times, .divide, .remainder: return try ArithmeticCompiler.combine(op, try compile(left), try compile(right), left: left, right: right)
            }
        }
    }

    private mutating func signal(_ name: String, range: Range<Int>) throws(ExpressionError) -> CompiledExpression {
        let definition: SignalDefinition
        switch SignalSchema.definition(of: name, attributes: attributes) {
        case .success(let found): definition = found
        case .failure(let failure): throw ExpressionError(.unknownSignal, failure.message, at: range, hint: failure.hint)
        }
        let index = layout.slot(for: definition).index
        switch definition.type {
        case .number, .duration, .timestamp: return .numeric(definition.type) { $0.numbers[index] }
        case .string: return .text { $0.strings[index] }
        case .bool: return .flag { $0.bools[index] }
        }
    }

    private func list(_ items: [Expression.Node], range: Range<Int>) throws(ExpressionError) -> CompiledExpression {
        var texts: Set<String> = []
        var numbers: Set<Double> = []
        var itemType: SignalType?
        for item in items {
            let (type, text, number): (SignalType, String?, Double?)
            switch item.expression {
            case .string(let value): (type, text, number) = (.string, value, nil)
            case .number(let value): (type, text, number) = (.number, nil, value)
            case .duration(let value): (type, text, number) = (.duration, nil, value)
            default:
                throw ExpressionError(.syntax, "list items must be literal strings, numbers or durations", at: item.range,
                                      hint: "for a list kept in a file, use list(\"name\")")
            }
            if let itemType, itemType != type {
                throw ExpressionError(.typeMismatch, "a list holds one type: this item is \(type.article), the first is \(itemType.article)", at: item.range)
            }
            itemType = type
            if let text { texts.insert(text) }
            if let number { numbers.insert(number) }
        }
        let type = itemType ?? .string
        return type == .string
            ? CompiledExpression(type: .string, isList: true, form: .textSet(texts))
            : CompiledExpression(type: type, isList: true, form: .numericSet(numbers))
    }

    private mutating func unary(_ op: Expression.UnaryOperator, _ operand: Expression.Node) throws(ExpressionError) -> CompiledExpression {
        let compiled = try compile(operand)
        switch (op, compiled.form) {
        case (.not, .flag(let evaluate)):
            return .flag { values in evaluate(values).map { !$0 } }
        case (.negate, .numeric(let evaluate)) where compiled.type != .timestamp:
            return .numeric(compiled.type) { values in evaluate(values).map { -$0 } }
        case (.not, _):
            throw ExpressionError(.typeMismatch, "`not` needs true or false, but this is \(compiled.typeDescription)", at: operand.range)
        case (.negate, _):
            throw ExpressionError(.typeMismatch, "`-` needs a number or a duration, but this is \(compiled.typeDescription)", at: operand.range)
        }
    }

    private mutating func logical(_ op: Expression.BinaryOperator, _ left: Expression.Node, _ right: Expression.Node) throws(ExpressionError) -> CompiledExpression {
        let lhs = try compile(left)
        let rhs = try compile(right)
        guard case .flag(let first) = lhs.form else {
            throw ExpressionError(.typeMismatch, "`\(op.rawValue)` joins conditions, but this is \(lhs.typeDescription)", at: left.range)
        }
        guard case .flag(let second) = rhs.form else {
            throw ExpressionError(.typeMismatch, "`\(op.rawValue)` joins conditions, but this is \(rhs.typeDescription)", at: right.range)
        }
        if op == .and {
            return .flag { values in
                switch first(values) {
                case false?: return false
                case true?: return second(values)
                case nil: return second(values) == false ? false : nil
                }
            }
        }
        return .flag { values in
            switch first(values) {
            case true?: return true
            case false?: return second(values)
            case nil: return second(values) == true ? true : nil
            }
        }
    }

    private mutating func membership(negated: Bool, _ left: Expression.Node, _ right: Expression.Node) throws(ExpressionError) -> CompiledExpression {
        let item = try compile(left)
        let collection = try compile(right)
        guard collection.isList else {
            throw ExpressionError(.typeMismatch, "`in` needs a list on its right, but this is \(collection.typeDescription)", at: right.range,
                                  hint: "write a list such as [\"a\", \"b\"] or list(\"name\")")
        }
        switch (item.form, collection.form) {
        case (.text(let evaluate), .textSet(let set)):
            return .flag { values in evaluate(values).map { set.contains($0) != negated } }
        case (.text(let evaluate), .membership(_, let contains)):
            return .flag { values in evaluate(values).map { contains($0, values) != negated } }
        case (.numeric(let evaluate), .numericSet(let set)) where item.type == collection.type:
            return .flag { values in evaluate(values).map { set.contains($0) != negated } }
        default:
            throw ExpressionError(.typeMismatch, "\(item.typeDescription) cannot be in \(collection.typeDescription)", at: left.range.lowerBound..<right.range.upperBound)
        }
    }
}
