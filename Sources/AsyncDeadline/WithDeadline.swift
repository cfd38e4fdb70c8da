public import NIOCore
import NIOPosix

/// Runs `operation` and answers within `limit`: if the operation has not finished by then, it is cancelled and
/// `timeoutError()` is thrown at once, without waiting for the operation to notice the cancellation.
///
/// The timer is a task scheduled on a NIO event loop and removed when the operation finishes first. A racing
/// `Task.sleep` would do the same job, but a cancelled sleep keeps its task and dispatch timer alive until the
/// original deadline: at thousands of operations a second with deadlines of seconds, that holds tens of
/// megabytes for nothing.
///
/// Cancelling the caller cancels the operation, whose own outcome (usually `CancellationError`) is then thrown.
///
/// - Parameters:
///   - limit: How long the operation may take; zero or less times out at once.
///   - eventLoop: Where the timer runs; any loop of NIO's shared group by default.
///   - timeoutError: The error thrown when the limit passes first.
///   - operation: The work, run as an unstructured task that inherits priority and task-local values.
public func withDeadline<Result: Sendable>(
    _ limit: Duration,
    on eventLoop: (any EventLoop)? = nil,
    timeoutError: @escaping @Sendable () -> any Error,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let race = DeadlineRace<Result>()
    let task = Task {
        do {
            race.finish(.success(try await operation()))
        } catch {
            race.finish(.failure(error))
        }
    }
    let timer = (eventLoop ?? MultiThreadedEventLoopGroup.singleton.any()).scheduleTask(in: .nanoseconds(limit.wholeNanoseconds)) {
        if race.finish(.failure(timeoutError())) { task.cancel() }
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await race.outcome()
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
