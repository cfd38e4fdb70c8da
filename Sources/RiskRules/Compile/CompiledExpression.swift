/// A type-checked expression turned into a closure over ``SignalValues``. `nil` from a closure is a missing value.
/// Lists (list literals and `list("name")`) are only ever the right side of `in`.
struct CompiledExpression: Sendable {
    typealias Evaluate<Value> = @Sendable (SignalValues) -> Value?

    enum Form: Sendable {
        /// Numbers, durations (seconds) and timestamps (seconds since 1970).
        case numeric(Evaluate<Double>)
        case text(Evaluate<String>)
        case flag(Evaluate<Bool>)
        case textSet(Set<String>)
        case numericSet(Set<Double>)
        /// A named list (`list("name")`): whether a text is in it, at the evaluation's instant.
        case membership(name: String, contains: @Sendable (String, SignalValues) -> Bool)
    }

    /// The value's type; for a list, the type of its items.
    var type: SignalType
    var isList: Bool
    var form: Form

    static func numeric(_ type: SignalType, _ evaluate: @escaping Evaluate<Double>) -> CompiledExpression {
        CompiledExpression(type: type, isList: false, form: .numeric(evaluate))
    }

    static func text(_ evaluate: @escaping Evaluate<String>) -> CompiledExpression {
        CompiledExpression(type: .string, isList: false, form: .text(evaluate))
    }

    static func flag(_ evaluate: @escaping Evaluate<Bool>) -> CompiledExpression {
        CompiledExpression(type: .bool, isList: false, form: .flag(evaluate))
    }

    /// How the type reads in messages: "a number", "a list of strings".
    var typeDescription: String {
        isList ? "a list of \(type.rawValue)s" : type.article
    }

    /// Whether the value is missing, whatever its type.
    var isMissing: Evaluate<Bool> {
        switch form {
        case .numeric(let evaluate): return { evaluate($0) == nil }
        case .text(let evaluate): return { evaluate($0) == nil }
        case .flag(let evaluate): return { evaluate($0) == nil }
        case .textSet, .numericSet, .membership: return { _ in false }
        }
    }

    /// The value for display in a reason, `nil` when missing.
    var display: @Sendable (SignalValues) -> String? {
        let type = self.type
        switch form {
        case .numeric(let evaluate):
            return { values in
                evaluate(values).map { value in
                    switch type {
                    case .duration: RuleValueFormat.duration(value)
                    case .timestamp: RuleValueFormat.timestamp(value)
                    default: RuleValueFormat.number(value)
                    }
                }
            }
        case .text(let evaluate): return { evaluate($0) }
        case .flag(let evaluate): return { evaluate($0).map { String($0) } }
        case .textSet(let set): return { _ in "[" + set.sorted().joined(separator: ", ") + "]" }
        case .numericSet(let set): return { _ in "[" + set.sorted().map(RuleValueFormat.number).joined(separator: ", ") + "]" }
        case .membership(let name, _): return { _ in "list(\"\(name)\")" }
        }
    }
}
