import Foundation
import Synchronization

/// Runs `work` on a thread of its own and waits at most `seconds` for it: its result, or nil when it did not finish
/// in time (a call blocked for good, say on a FIFO, then stays blocked on that thread, not on the test's).
public func finishing<T: Sendable>(within seconds: Double, _ work: @escaping @Sendable () -> T) async -> T? {
    let once = OnceFlag()
    return await withCheckedContinuation { continuation in
        Thread {
            let result = work()
            if once.claim() { continuation.resume(returning: result) }
        }.start()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if once.claim() { continuation.resume(returning: nil) } }
    }
}

/// Waits at most `seconds` for `work`, an async call that may block its thread for good: nil when it did not finish.
public func finishing<T: Sendable>(within seconds: Double, _ work: @escaping @Sendable () async -> T) async -> T? {
    let once = OnceFlag()
    return await withCheckedContinuation { continuation in
        Task.detached {
            let result = await work()
            if once.claim() { continuation.resume(returning: result) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if once.claim() { continuation.resume(returning: nil) } }
    }
}

/// True for the first caller of ``claim()`` only.
public final class OnceFlag: Sendable {
    private let claimed = Mutex(false)
    public init() {}

    public func claim() -> Bool {
        claimed.withLock { claimed in
            let first = !claimed
            claimed = true
            return first
        }
    }
}
