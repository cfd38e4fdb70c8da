import AttestGuardStore
import EventLoopConcurrency
import Synchronization

/// How long an operation past its deadline may take to stop before its caller is answered anyway.
let operationAbandonGrace = Duration.milliseconds(500)

/// Runs `operation`, throwing ``StoreError/Code/unavailable`` if it takes longer than `limit`: PostgreSQL's pool
/// waits for a connection indefinitely while the database is down, and callers need an answer.
///
/// Past `limit` the operation is cancelled and the PostgreSQL connections it holds (`connections`) are closed, which
/// ends a wait postgres-nio does not end on cancellation; whatever it still does after ``operationAbandonGrace``
/// goes on without the caller, who is answered by then. `counts` counts both.
func withOperationDeadline<Result: Sendable>(
    _ limit: Duration,
    closing connections: OperationConnections? = nil,
    counts: StoreDeadlineCounts? = nil,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withDeadline(
        limit, abandoningAfter: operationAbandonGrace,
        onTimeout: {
            counts?.noteTimedOut()
            connections?.closeAll()
        },
        onAbandon: { counts?.noteAbandoned() },
        timeoutError: { operationTimedOut(limit) },
        operation
    )
}

/// The error of a store operation that did not finish within `limit`.
func operationTimedOut(_ limit: Duration) -> StoreError {
    StoreError(.unavailable, "the database did not answer within \(limit)")
}

/// How many store operations ran past their deadline (their connections closed), and how many of those had still
/// not stopped ``operationAbandonGrace`` later and were left to finish on their own: what
/// `attestguard_store_operations_timed_out_total` and `attestguard_store_operations_abandoned_total` count.
public final class StoreDeadlineCounts: Sendable {
    private let counts = Mutex((timedOut: 0, abandoned: 0))

    public init() {}

    func noteTimedOut() { counts.withLock { $0.timedOut += 1 } }
    func noteAbandoned() { counts.withLock { $0.abandoned += 1 } }

    /// The counts since the store opened.
    public var snapshot: (timedOut: Int, abandoned: Int) { counts.withLock { $0 } }
}
