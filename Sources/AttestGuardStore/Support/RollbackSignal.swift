/// Thrown inside a transaction when a conditional statement changed no row: the transaction rolls back and the
/// caller diagnoses the cause from the rows as they now are.
package struct RollbackSignal: Error {
    package enum Step: Sendable, Equatable {
        case challenge
        case counter
        case keyExists
        /// A run-time list would hold this many entries, past its bound.
        case listFull(entries: Int)
    }

    package let step: Step

    package init(step: Step) {
        self.step = step
    }
}
