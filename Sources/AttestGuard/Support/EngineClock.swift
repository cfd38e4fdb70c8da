public import Foundation
import Synchronization

/// The one source of "now" for the engine: challenge expiry, certificate validity, receipt age and rate limits
/// all read it, so tests run at fixed instants.
public protocol EngineClock: Sendable {
    func now() -> Date
}

/// The wall clock, for production.
public struct SystemClock: EngineClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to: for tests, demos and the simulator.
public final class ManualClock: EngineClock {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        self.current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
