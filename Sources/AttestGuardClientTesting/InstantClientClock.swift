public import AttestGuardClient
public import Foundation

/// A client clock for tests: the time is the wall clock plus what the test advanced, and a retry's wait returns
/// at once after adding the wait to the time, so a back-off costs no real time. It records every wait.
public final class InstantClientClock: ClientClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    private var recorded: [Double] = []

    public init() {}

    public func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return Date().addingTimeInterval(offset)
    }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            offset += seconds
            recorded.append(seconds)
        }
    }

    /// Moves the time on without a wait.
    public func advance(seconds: Double) {
        lock.lock()
        offset += seconds
        lock.unlock()
    }

    /// The waits asked for, in order.
    public var waits: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
