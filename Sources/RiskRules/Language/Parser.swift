/// Parses a rule expression by precedence climbing. From loosest to tightest: `or`; `and`; `not`; the
/// comparisons `== != < <= > >= in`, `not in` (not chained: `a < b < c` is an error); `+ -`; `* / %`; unary
/// `-`; then literals, signals, calls `name(...)`, lists `[...]` and parentheses.
struct Parser {
    private let tokens: [Token]
    private var index = 0
    /// Nesting limit, so that a hostile file cannot exhaust the stack.
    static let maximumDepth = 64
    private var depth = 0

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Parses the whole text as one expression.
    static func parse(_ text: String) throws(ExpressionError) -> Expression.Node {
        var parser = Parser(tokens: try Lexer.tokens(of: text))
        guard parser.current.kind != .end else {
            throw ExpressionError(.syntax, "the expression is empty", at: 0..<0)
        }
        let node = try parser.orExpression()
        guard parser.current.kind == .end else {
            throw ExpressionError(.syntax, "unexpected \(parser.current.display) after a complete expression", at: parser.current.range,
                                  hint: "join conditions with `and` or `or`")
        }
        return node
    }

    private var current: Token { tokens[index] }

    private mutating func advance() -> Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private mutating func nested<T>(_ body: (inout Parser) throws(ExpressionError) -> T) throws(ExpressionError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw ExpressionError(.syntax, "the expression nests deeper than \(Self.maximumDepth) levels", at: current.range)
        }
        return try body(&self)
    }

    private mutating func orExpression() throws(ExpressionError) -> Expression.Node {
        var left = try andExpression()
        while current.kind == .keyword(.or) {
            _ = advance()
            let right = try andExpression()
            left = Self.binary(.or, left, right)
        }
        return left
    }

    private mutating func andExpression() throws(ExpressionError) -> Expression.Node {
        var left = try notExpression()
        while current.kind == .keyword(.and) {
            _ = advance()
            let right = try notExpression()
            left = Self.binary(.and, left, right)
        }
        return left
    }

    private mutating func notExpression() throws(ExpressionError) -> Expression.Node {
        guard current.kind == .keyword(.not) else { return try comparison() }
        let start = advance().range.lowerBound
        let operand = try nested { (parser: inout Parser) throws(ExpressionError) in try parser.notExpression() }
        return Expression.Node(expression: .unary(.not, operand), range: start..<operand.range.upperBound)
    }

    private mutating func comparison() throws(ExpressionError) -> Expression.Node {
        let left = try additive()
        guard let op = comparisonOperator() else { return left }
        let right = try additive()
        if comparisonOperator() != nil {
            throw ExpressionError(.syntax, "comparisons do not chain", at: current.range, hint: "write `a < b and b < c`")
        }
        return Self.binary(op, left, right)
    }

    /// Consumes a comparison operator if one is next.
    private mutating func comparisonOperator() -> Expression.BinaryOperator? {
        switch current.kind {
        case .symbol(.equal): _ = advance(); return .equal
        case .symbol(.notEqual): _ = advance(); return .notEqual
        case .symbol(.less): _ = advance(); return .less
        case .symbol(.lessOrEqual): _ = advance(); return .lessOrEqual
        case .symbol(.greater): _ = advance(); return .greater
        case .symbol(.greaterOrEqual): _ = advance(); return .greaterOrEqual
        case .keyword(.in): _ = advance(); return .in
        case .keyword(.not) where tokens[min(index + 1, tokens.count - 1)].kind == .keyword(.in):
            _ = advance()
            _ = advance()
            return .notIn
        default: return nil
        }
    }

    private mutating func additive() throws(ExpressionError) -> Expression.Node {
        var left = try multiplicative()
        while true {
            let op: Expression.BinaryOperator
            switch current.kind {
            case .symbol(.plus): op = .plus
            case .symbol(.minus): op = .minus
            default: return left
            }
            _ = advance()
            left = Self.binary(op, left, try multiplicative())
        }
    }

    private mutating func multiplicative() throws(ExpressionError) -> Expression.Node {
        var left = try unary()
        while true {
            let op: Expression.BinaryOperator
            switch current.kind {
            case .symbol(.times): op = .times
            case .symbol(.divide): op = .divide
            case .symbol(.remainder): op = .remainder
            default: return left
            }
            _ = advance()
            left = Self.binary(op, left, try unary())
        }
    }

    private mutating func unary() throws(ExpressionError) -> Expression.Node {
        guard current.kind == .symbol(.minus) else { return try primary() }
        let start = advance().range.lowerBound
        let operand = try nested { (parser: inout Parser) throws(ExpressionError) in try parser.unary() }
        return Expression.Node(expression: .unary(.negate, operand), range: start..<operand.range.upperBound)
    }

    private mutating func primary() throws(ExpressionError) -> Expression.Node {
        let token = advance()
        switch token.kind {
        case .number(let value): return Expression.Node(expression: .number(value), range: token.range)
        case .duration(let seconds): return Expression.Node(expression: .duration(seconds), range: token.range)
        case .string(let text): return Expression.Node(expression: .string(text), range: token.range)
        case .keyword(.true): return Expression.Node(expression: .bool(true), range: token.range)
        case .keyword(.false): return Expression.Node(expression: .bool(false), range: token.range)
        case .name(let name):
            guard current.kind == .symbol(.openParen) else { return Expression.Node(expression: .signal(name), range: token.range) }
            _ = advance()
            let (arguments, end) = try nested { (parser: inout Parser) throws(ExpressionError) in try parser.items(closing: .closeParen) }
            return Expression.Node(expression: .call(name, arguments), range: token.range.lowerBound..<end)
        case .symbol(.openParen):
            let inner = try nested { (parser: inout Parser) throws(ExpressionError) in try parser.orExpression() }
            guard current.kind == .symbol(.closeParen) else {
                throw ExpressionError(.syntax, "expected `)` but found \(current.display)", at: current.range, hint: "close the `(` opened here")
            }
            let end = advance().range.upperBound
            return Expression.Node(expression: inner.expression, range: token.range.lowerBound..<end)
        case .symbol(.openBracket):
            let (items, end) = try nested { (parser: inout Parser) throws(ExpressionError) in try parser.items(closing: .closeBracket) }
            return Expression.Node(expression: .list(items), range: token.range.lowerBound..<end)
        case .end:
            throw ExpressionError(.syntax, "the expression ends too early", at: token.range, hint: "a value or a signal is missing here")
        default:
            throw ExpressionError(.syntax, "unexpected \(token.display)", at: token.range, hint: "a value, a signal or `(` was expected")
        }
    }

    /// Comma-separated expressions up to the closing symbol; returns them and the end offset of the closer.
    private mutating func items(closing: Token.Symbol) throws(ExpressionError) -> ([Expression.Node], Int) {
        var items: [Expression.Node] = []
        if current.kind == .symbol(closing) { return (items, advance().range.upperBound) }
        while true {
            items.append(try orExpression())
            switch current.kind {
            case .symbol(.comma): _ = advance()
            case .symbol(closing): return (items, advance().range.upperBound)
            default:
                throw ExpressionError(.syntax, "expected `,` or `\(closing.rawValue)` but found \(current.display)", at: current.range)
            }
        }
    }

    private static func binary(_ op: Expression.BinaryOperator, _ left: Expression.Node, _ right: Expression.Node) -> Expression.Node {
        Expression.Node(expression: .binary(op, left, right), range: left.range.lowerBound..<right.range.upperBound)
    }
}
