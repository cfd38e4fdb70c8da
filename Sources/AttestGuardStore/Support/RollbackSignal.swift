/// Thrown inside a transaction when a conditional statement changed no row: the transaction rolls back and the
/// caller diagnoses the cause from the rows as they now are.
package struct RollbackSignal: Error {
    package enum Step: Sendable {
        case challenge
        case counter
        case keyExists
    }

    package let step: Step

    package init(step: Step) {
        self.step = step
    }
}
