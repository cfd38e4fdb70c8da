import EventLoopConcurrency

/// Runs `operation`, cancelling it and throwing ``StoreError/Code/unavailable`` if it takes longer than `limit`.
/// PostgreSQL's pool waits for a connection indefinitely while the database is down; callers need an answer.
func withOperationDeadline<Result: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withDeadline(limit, timeoutError: { StoreError(.unavailable, "the database did not answer within \(limit)") }, operation)
}
