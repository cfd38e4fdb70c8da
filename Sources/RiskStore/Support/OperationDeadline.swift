/// Runs `operation`, cancelling it and throwing ``StoreError/Code/unavailable`` if it takes longer than `limit`.
/// PostgreSQL's pool waits for a connection indefinitely while the database is down; callers need an answer.
func withOperationDeadline<Result: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw StoreError(.unavailable, "the database did not answer within \(limit)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            throw StoreError(.unavailable, "the store operation was cancelled")
        }
        return first
    }
}
