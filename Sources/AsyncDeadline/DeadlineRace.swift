import NIOConcurrencyHelpers

/// The meeting point of an operation, its timer and the caller waiting for either: the first outcome wins and
/// is handed to the caller, whether the caller is already waiting or arrives later.
final class DeadlineRace<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Value, any Error>)
        case finished(Result<Value, any Error>)
        case delivered
    }

    private let state = NIOLockedValueBox(State.pending)

    /// Offers an outcome; true if it is the first one (and so the caller's answer).
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let (won, waiter): (Bool, CheckedContinuation<Value, any Error>?) = state.withLockedValue { state in
            switch state {
            case .pending:
                state = .finished(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .delivered
                return (true, continuation)
            case .finished, .delivered:
                return (false, nil)
            }
        }
        waiter?.resume(with: result)
        return won
    }

    /// The first outcome, waiting for it if need be.
    func outcome() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Value, any Error>? = state.withLockedValue { state in
                switch state {
                case .pending:
                    state = .waiting(continuation)
                    return nil
                case .finished(let result):
                    state = .delivered
                    return result
                case .waiting, .delivered:
                    preconditionFailure("DeadlineRace.outcome() awaited twice")
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
