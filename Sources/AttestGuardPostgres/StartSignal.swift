import Synchronization

/// A one-way signal that something has started: ``wait()`` returns at once after ``open()``, and until then
/// suspends (a cancelled waiter returns too, with `CancellationError`). Checking an open signal is one uncontended
/// lock, cheap enough for every store operation.
final class StartSignal: Sendable {
    private struct State {
        var open = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state = Mutex(State())

    var isOpen: Bool { state.withLock { $0.open } }

    /// Opens the signal and resumes every waiter; later calls do nothing.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard !state.open else { return [] }
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal is open; throws `CancellationError` if the waiting task is cancelled first.
    func wait() async throws {
        if isOpen { return }
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resume: Result<Void, any Error>? = state.withLock { state in
                    if state.open { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}
