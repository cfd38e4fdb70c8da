/// One lexical unit of a rule expression, with where it stands in the expression text (UTF-8 offsets).
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Double)
        /// A duration literal such as `24h`, in seconds.
        case duration(Double)
        case string(String)
        /// A name, possibly dotted: `receipt.risk_metric`, `velocity.assertions.key.1h`, `list`.
        case name(String)
        case keyword(Keyword)
        case symbol(Symbol)
        case end
    }

    enum Keyword: String, Sendable, CaseIterable {
        case and, or, not, `in`, `true`, `false`
    }

    enum Symbol: String, Sendable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case less = "<"
        case greater = ">"
        case plus = "+"
        case minus = "-"
        case times = "*"
        case divide = "/"
        case remainder = "%"
        case openParen = "("
        case closeParen = ")"
        case openBracket = "["
        case closeBracket = "]"
        case comma = ","
    }

    var kind: Kind
    /// Byte offsets of the token in the expression text.
    var range: Range<Int>

    var display: String {
        switch kind {
        case .number(let value): return RuleValueFormat.number(value)
        case .duration(let seconds): return RuleValueFormat.duration(seconds)
        case .string(let text): return "\"\(text)\""
        case .name(let name): return name
        case .keyword(let keyword): return keyword.rawValue
        case .symbol(let symbol): return symbol.rawValue
        case .end: return "the end of the expression"
        }
    }
}
