import NIOConcurrencyHelpers

/// Runs `operation` within `limit`: if it has not finished by then, it is cancelled, and once it has stopped,
/// `timeoutError()` is thrown (unless it finished with a value all the same). The operation never outlives the
/// call, so nothing it holds (a connection, an HTTP body writer) is left running behind the caller's back.
///
/// The timer is one of ``CoarseTimers/shared`` (10 ms buckets: it fires up to about 10 ms after `limit`), removed
/// as soon as the operation finishes. A racing `Task.sleep` would do the same job, but a cancelled sleep keeps its
/// task and dispatch timer alive until the original deadline (swiftlang/swift#60441): at thousands of operations a
/// second with deadlines of seconds, that holds memory for thousands of sleeps for nothing. A NIO `scheduleTask`
/// per operation from outside the loop would wake the loop's thread each time.
///
/// Cancelling the caller cancels the operation, whose own outcome (usually `CancellationError`) is then thrown.
///
/// - Parameters:
///   - limit: How long the operation may take; zero or less times out at once.
///   - timeoutError: The error thrown when the limit passes first.
///   - operation: The work, run as a task that inherits priority and task-local values, and prefers the executor
///     of ``withPreferredTaskExecutor(_:operation:)`` when the caller runs inside one. The task starts on the
///     caller's thread (`Task.immediate`) and runs there until it first suspends, instead of waiting in an
///     executor's queue for a thread first.
public func withDeadline<Result: Sendable>(
    _ limit: Duration,
    timeoutError: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let task = Task.immediate(executorPreference: PreferredTaskExecutor.current) { try await operation() }
    let timedOut = NIOLockedValueBox(false)
    let timer = CoarseTimers.shared.schedule(in: limit) {
        timedOut.withLockedValue { $0 = true }
        task.cancel()
    }
    defer { if let timer { CoarseTimers.shared.cancel(timer) } }
    return try await withTaskCancellationHandler {
        do {
            return try await task.value
        } catch {
            if timedOut.withLockedValue({ $0 }) { throw timeoutError() }
            throw error
        }
    } onCancel: {
        task.cancel()
    }
}

extension Duration {
    /// The duration in nanoseconds, saturating at `Int64`'s bounds.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return whole < 0 ? .min : .max }
        return total
    }
}
