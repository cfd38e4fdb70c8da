public import NIOConcurrencyHelpers

/// Runs `operation` within `limit`, and answers within `limit + grace` whatever the operation does.
///
/// When `limit` passes, the operation is cancelled and `onTimeout` runs: it is where the caller breaks what the
/// operation may be waiting on in a way that ignores cancellation (postgres-nio's wait for a query's answer does:
/// closing the connection ends it). Once the operation has stopped, `timeoutError()` is thrown (unless it finished with
/// a value all the same). If it has not stopped `grace` later, `timeoutError()` is thrown anyway and `onAbandon` runs:
/// the operation is left to finish on its own, which ``withDeadline(_:timeoutError:_:)`` never does. That bound is
/// what a request path needs: an answer, even from code that cannot be stopped.
///
/// Cancelling the caller cancels the operation, whose own outcome is then thrown; the deadline stays armed, so a
/// cancellation the operation ignores still ends at `limit + grace`.
///
/// - Parameters:
///   - limit: How long the operation may take; zero or less times out at once.
///   - grace: How long a timed-out operation may take to stop before it is abandoned.
///   - onTimeout: Runs once when `limit` passes first, after the operation is cancelled.
///   - onAbandon: Runs once when the operation is abandoned, before the caller gets `timeoutError()`, on the timers'
///     event loop: it must be quick (count or log), since the answer and other deadlines wait for it.
///   - timeoutError: The error thrown when the limit passes first.
///   - operation: The work, run as in ``withDeadline(_:timeoutError:_:)``.
///
/// Inlinable, with its ``DeadlineAnswer``, so that it is specialised for the caller's result type: every store
/// operation runs under it, and an unspecialised answer looks up the generic metadata of its state, continuation and
/// result at every step.
@inlinable
public func withDeadline<Result: Sendable>(
    _ limit: Duration,
    abandoningAfter grace: Duration,
    onTimeout: @escaping @Sendable () -> Void = {},
    onAbandon: @escaping @Sendable () -> Void = {},
    timeoutError: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let answer = DeadlineAnswer<Result>()
    let task = Task.immediate(executorPreference: PreferredTaskExecutor.current) {
        let outcome: Swift.Result<Result, any Error>
        do {
            outcome = .success(try await operation())
        } catch {
            outcome = .failure(answer.timedOut ? timeoutError() : error)
        }
        answer.finish(outcome)
    }
    let timer = CoarseTimers.shared.schedule(in: limit) {
        answer.markTimedOut()
        task.cancel()
        onTimeout()
        let abandonment = CoarseTimers.shared.schedule(in: grace) {
            answer.finish(.failure(timeoutError()), beforeAnswer: onAbandon)
        }
        if let abandonment { answer.holdAbandonment(abandonment) }
    }
    defer {
        if let timer { CoarseTimers.shared.cancel(timer) }
        answer.cancelAbandonment()
    }
    return try await withTaskCancellationHandler {
        try await answer.value()
    } onCancel: {
        task.cancel()
    }
}

/// The first outcome of a deadline race, handed to the caller however the outcome and the caller's wait are
/// ordered.
@usableFromInline
final class DeadlineAnswer<Value: Sendable>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var outcome: Swift.Result<Value, any Error>?
        @usableFromInline var waiter: CheckedContinuation<Value, any Error>?
        @usableFromInline var finished = false
        @usableFromInline var timedOut = false
        @usableFromInline var abandonment: CoarseTimers.Timer?

        @usableFromInline
        init() {}
    }

    @usableFromInline let state: NIOLockedValueBox<State>

    @inlinable
    init() {
        state = NIOLockedValueBox(State())
    }

    @inlinable
    var timedOut: Bool { state.withLockedValue { $0.timedOut } }

    @inlinable
    func markTimedOut() {
        state.withLockedValue { $0.timedOut = true }
    }

    @inlinable
    func holdAbandonment(_ timer: CoarseTimers.Timer) {
        let finished = state.withLockedValue { state in
            if !state.finished { state.abandonment = timer }
            return state.finished
        }
        if finished { CoarseTimers.shared.cancel(timer) }
    }

    @inlinable
    func cancelAbandonment() {
        if let timer = state.withLockedValue({ state in defer { state.abandonment = nil }; return state.abandonment }) {
            CoarseTimers.shared.cancel(timer)
        }
    }

    /// Records the outcome unless one came first, and hands it to the caller; returns whether this one was first.
    /// `beforeAnswer` runs only when it is, before the caller can see the outcome, so that what the caller observes
    /// after its answer (the abandonment hook's effects) has happened.
    @inlinable
    @discardableResult
    func finish(_ outcome: Swift.Result<Value, any Error>, beforeAnswer: () -> Void = {}) -> Bool {
        let first = state.withLockedValue { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            return true
        }
        guard first else { return false }
        beforeAnswer()
        let waiter = state.withLockedValue { state -> CheckedContinuation<Value, any Error>? in
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: outcome)
        return true
    }

    @inlinable
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLockedValue { state -> Swift.Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
