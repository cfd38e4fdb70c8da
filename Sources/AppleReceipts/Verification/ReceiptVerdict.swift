/// The outcome of verifying a receipt: the decoded receipt, or the first check that failed.
public enum ReceiptVerdict: Sendable, Hashable {
    case valid(Receipt)
    case invalid(ReceiptError)

    /// The receipt when valid.
    public var receipt: Receipt? {
        if case .valid(let receipt) = self { return receipt }
        return nil
    }

    /// The failure when invalid.
    public var error: ReceiptError? {
        if case .invalid(let error) = self { return error }
        return nil
    }

    /// The receipt, or the failure thrown.
    public func get() throws(ReceiptError) -> Receipt {
        switch self {
        case .valid(let receipt): return receipt
        case .invalid(let error): throw error
        }
    }
}
