public import Foundation
import Synchronization

/// The one source of "now" for the engine: challenge expiry, certificate validity, receipt age, rate limits and
/// the receipt scheduler's back-offs all read it, so tests run at fixed instants and never wait on wall time.
public protocol EngineClock: Sendable {
    func now() -> Date

    /// Suspends until `deadline` (at once when it has passed); throws `CancellationError` when cancelled.
    func sleep(until deadline: Date) async throws
}

/// The wall clock, for production.
public struct SystemClock: EngineClock {
    public init() {}
    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 {
            try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
        } else {
            try Task.checkCancellation()
        }
    }
}

/// A clock that moves only when told to: for tests, demos and the simulator. Sleeping moves it forward to the
/// deadline at once (never backwards), so retries and back-offs cost a test no wall time.
public final class ManualClock: EngineClock {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        self.current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
        await Task.yield()
    }

    public func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
