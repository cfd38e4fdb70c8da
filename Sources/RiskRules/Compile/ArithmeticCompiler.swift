/// `+ - * / %` with units: numbers with numbers; durations added to or subtracted from durations, scaled by or
/// divided by numbers, and divided by durations (a number); a timestamp minus a timestamp is a duration, and a
/// timestamp plus or minus a duration a timestamp. Missing operands, and division by zero, give missing.
enum ArithmeticCompiler {
    static func combine(
        _ op: Expression.BinaryOperator,
        _ lhs: CompiledExpression,
        _ rhs: CompiledExpression,
        left: Expression.Node,
        right: Expression.Node
    ) throws(ExpressionError) -> CompiledExpression {
        let range = left.range.lowerBound..<right.range.upperBound
        guard case .numeric(let first) = lhs.form, case .numeric(let second) = rhs.form,
            let resultType = resultType(op, lhs.type, rhs.type)
        else {
            throw ExpressionError(.typeMismatch, "cannot apply `\(op.rawValue)` to \(lhs.typeDescription) and \(rhs.typeDescription)", at: range,
                                  hint: lhs.type == .string || rhs.type == .string ? "strings do not add up; compare them with == or in" : nil)
        }
        let apply: @Sendable (Double, Double) -> Double?
        switch op {
        case .plus: apply = { $0 + $1 }
        case .minus: apply = { $0 - $1 }
        case .times: apply = { $0 * $1 }
        case .divide: apply = { $1 == 0 ? nil : $0 / $1 }
        default: apply = { $1 == 0 ? nil : $0.truncatingRemainder(dividingBy: $1) }
        }
        return .numeric(resultType) { values in
            guard let a = first(values), let b = second(values) else { return nil }
            return apply(a, b)
        }
    }

    private static func resultType(_ op: Expression.BinaryOperator, _ left: SignalType, _ right: SignalType) -> SignalType? {
        switch (op, left, right) {
        case (_, .number, .number): .number
        case (.plus, .duration, .duration), (.minus, .duration, .duration), (.remainder, .duration, .duration): .duration
        case (.times, .duration, .number), (.times, .number, .duration), (.divide, .duration, .number): .duration
        case (.divide, .duration, .duration): .number
        case (.minus, .timestamp, .timestamp): .duration
        case (.plus, .timestamp, .duration), (.minus, .timestamp, .duration), (.plus, .duration, .timestamp): .timestamp
        default: nil
        }
    }
}
