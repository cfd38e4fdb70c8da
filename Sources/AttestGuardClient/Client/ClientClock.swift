public import Foundation

/// The client's one clock: the instant a challenge is checked against, and the waits between retries. Tests inject
/// one that never sleeps.
public protocol ClientClock: Sendable {
    /// Now.
    func now() -> Date
    /// Waits `seconds` (throws when the task is cancelled).
    func sleep(seconds: Double) async throws
}

/// The system's wall clock and `Task.sleep`.
public struct SystemClientClock: ClientClock {
    /// The system's clock.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
}
