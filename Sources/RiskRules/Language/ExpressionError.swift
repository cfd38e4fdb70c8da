/// Why an expression does not parse or type-check, with where in the expression text (UTF-8 offsets). The rule
/// loader turns it into a ``RuleSetError`` at the file's line and column.
public struct ExpressionError: Error, Sendable, Equatable {
    /// A stable code per kind of mistake.
    public enum Code: String, Sendable {
        case syntax = "syntax_error"
        case unknownSignal = "unknown_signal"
        case unknownFunction = "unknown_function"
        case unknownList = "unknown_list"
        case typeMismatch = "type_mismatch"
        case wrongArguments = "wrong_arguments"
    }

    public var code: Code
    public var message: String
    /// Byte offsets in the expression text.
    public var range: Range<Int>
    /// What to do about it, when there is something to suggest.
    public var hint: String?

    public init(_ code: Code, _ message: String, at range: Range<Int>, hint: String? = nil) {
        self.code = code
        self.message = message
        self.range = range
        self.hint = hint
    }
}
