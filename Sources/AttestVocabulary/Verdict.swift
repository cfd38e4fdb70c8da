/// The outcome of a verification: the verified value, or the first check that failed.
///
/// Verifiers return verdicts rather than throwing, so a failed check is an ordinary value the caller
/// switches over; ``get()`` turns it into a typed throw where that reads better.
public enum Verdict<Value: Sendable, Failure: Error & Sendable>: Sendable {
    case valid(Value)
    case invalid(Failure)

    /// The verified value when valid.
    public var value: Value? {
        if case .valid(let value) = self { return value }
        return nil
    }

    /// The failure when invalid.
    public var error: Failure? {
        if case .invalid(let error) = self { return error }
        return nil
    }

    /// The verified value, or the failure thrown.
    public func get() throws(Failure) -> Value {
        switch self {
        case .valid(let value): return value
        case .invalid(let error): throw error
        }
    }
}
