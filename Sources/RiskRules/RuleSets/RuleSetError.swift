public import PolicyFiles

/// A problem in a rule set's files: the policy files' problem, under the rule language's name.
public typealias RuleSetError = PolicyFileProblem

/// Why a rule set did not load.
public typealias RuleSetLoadFailure = PolicyFileLoadFailure

extension PolicyFileProblem.Code {
    /// The code of an expression's problem.
    init(_ code: ExpressionError.Code) {
        switch code {
        case .syntax: self = .syntax
        case .unknownSignal: self = .unknownSignal
        case .unknownFunction: self = .unknownFunction
        case .unknownList: self = .unknownList
        case .typeMismatch: self = .typeMismatch
        case .wrongArguments: self = .wrongArguments
        }
    }
}
