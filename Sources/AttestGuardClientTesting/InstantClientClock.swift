public import AttestGuardClient
public import Foundation

/// A client clock for tests: the time is the wall clock plus what the test advanced, and a retry's wait returns
/// at once after adding the wait to the time, so a back-off costs no real time. It records every wait.
public final class InstantClientClock: ClientClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    private var recorded: [Double] = []

    /// A clock at the wall clock's time, with no waits recorded.
    public init() {}

    public func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return Date().addingTimeInterval(offset)
    }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        record(seconds)
    }

    /// `NSLock.withLock` needs iOS 16: the lock is taken in a synchronous method instead.
    private func record(_ seconds: Double) {
        lock.lock()
        offset += seconds
        recorded.append(seconds)
        lock.unlock()
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
