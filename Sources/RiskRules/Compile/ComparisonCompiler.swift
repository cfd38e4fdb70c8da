/// `== != < <= > >=` between two compiled operands of the same type. Numbers, durations and timestamps order;
/// strings and booleans only compare for equality. A missing operand makes the comparison missing.
enum ComparisonCompiler {
    static func compare(
        _ op: Expression.BinaryOperator,
        _ lhs: CompiledExpression,
        _ rhs: CompiledExpression,
        left: Expression.Node,
        right: Expression.Node
    ) throws(ExpressionError) -> CompiledExpression {
        let range = left.range.lowerBound..<right.range.upperBound
        guard lhs.type == rhs.type, !lhs.isList, !rhs.isList else {
            throw ExpressionError(.typeMismatch, "cannot compare \(lhs.typeDescription) with \(rhs.typeDescription)", at: range,
                                  hint: hint(lhs.type, rhs.type))
        }
        switch (lhs.form, rhs.form) {
        case (.numeric(let first), .numeric(let second)):
            let test = ordering(op)
            return .flag { values in
                guard let a = first(values), let b = second(values) else { return nil }
                return test(a, b)
            }
        case (.text(let first), .text(let second)):
            let wantEqual = try equality(op, type: .string, range: range)
            return .flag { values in
                guard let a = first(values), let b = second(values) else { return nil }
                return (a == b) == wantEqual
            }
        case (.flag(let first), .flag(let second)):
            let wantEqual = try equality(op, type: .bool, range: range)
            return .flag { values in
                guard let a = first(values), let b = second(values) else { return nil }
                return (a == b) == wantEqual
            }
        default:
            throw ExpressionError(.typeMismatch, "cannot compare \(lhs.typeDescription) with \(rhs.typeDescription)", at: range)
        }
    }

    private static func ordering(_ op: Expression.BinaryOperator) -> @Sendable (Double, Double) -> Bool {
        switch op {
        case .equal: { $0 == $1 }
        case .notEqual: { $0 != $1 }
        case .less: { $0 < $1 }
        case .lessOrEqual: { $0 <= $1 }
        case .greater: { $0 > $1 }
        default: { $0 >= $1 }
        }
    }

    /// True for `==`, false for `!=`; an ordering operator on strings or booleans is an error.
    private static func equality(_ op: Expression.BinaryOperator, type: SignalType, range: Range<Int>) throws(ExpressionError) -> Bool {
        switch op {
        case .equal: return true
        case .notEqual: return false
        default:
            throw ExpressionError(.typeMismatch, "`\(op.rawValue)` orders numbers, durations and timestamps, not \(type.rawValue)s", at: range,
                                  hint: "use == or != (or `in [...]` for several values)")
        }
    }

    private static func hint(_ left: SignalType, _ right: SignalType) -> String? {
        switch (left, right) {
        case (.duration, .number), (.number, .duration):
            "durations are written with a unit: 30m, 24h, 7d"
        case (.timestamp, .duration), (.duration, .timestamp):
            "age(timestamp) is the duration since it: compare age(x) > 24h"
        case (.timestamp, .number), (.number, .timestamp):
            "compare a timestamp with another, or its age(x) with a duration"
        case (.bool, _), (_, .bool):
            "a boolean is tested by itself (`x`, `not x`) or with == true/false"
        default:
            nil
        }
    }
}
