/// Thrown inside a transaction when a conditional statement changed no row: the transaction rolls back and the
/// caller diagnoses the cause from the rows as they now are.
struct RollbackSignal: Error {
    enum Step: Sendable {
        case challenge
        case counter
        case keyExists
    }

    let step: Step
}
