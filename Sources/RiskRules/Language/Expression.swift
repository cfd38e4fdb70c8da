/// A parsed rule expression: what the parser builds and the compiler type-checks. Every node knows the part of
/// the expression text it came from, so errors point at it.
indirect enum Expression: Sendable {
    case number(Double)
    /// Seconds.
    case duration(Double)
    case string(String)
    case bool(Bool)
    case list([Node])
    case signal(String)
    case call(String, [Node])
    case unary(UnaryOperator, Node)
    case binary(BinaryOperator, Node, Node)

    /// An expression and its byte range in the expression text.
    struct Node: Sendable {
        var expression: Expression
        var range: Range<Int>
    }

    enum UnaryOperator: String, Sendable {
        case not
        case negate = "-"
    }

    enum BinaryOperator: String, Sendable {
        case or, and
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case `in`, notIn = "not in"
        case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%"
    }
}
