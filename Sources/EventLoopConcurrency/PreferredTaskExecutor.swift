/// The task executor a task prefers, readable by code that starts unstructured tasks on the task's behalf.
///
/// Swift's task executor preference (`withTaskExecutorPreference`) reaches child tasks but not unstructured ones,
/// and a task cannot read its own preference back as an executor. ``withDeadline`` runs its operation as an
/// unstructured task, so that a timeout can cancel the operation alone: under
/// ``withPreferredTaskExecutor(_:operation:)`` that task prefers the same executor. A server handling a connection
/// on its event loop then resumes a store operation on that loop when the database answers there, instead of on the
/// global pool and back.
public enum PreferredTaskExecutor {
    /// The executor set by the innermost ``withPreferredTaskExecutor(_:operation:)``, or `nil`.
    @TaskLocal public static var current: (any TaskExecutor)?
}

/// Runs `operation` with `executor` as the task's executor preference, and as ``PreferredTaskExecutor/current`` for
/// the unstructured tasks ``withDeadline`` starts inside it.
public func withPreferredTaskExecutor<Result>(
    _ executor: any TaskExecutor,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async rethrows -> Result {
    try await PreferredTaskExecutor.$current.withValue(executor) {
        try await withTaskExecutorPreference(executor, isolation: isolation, operation: operation)
    }
}
