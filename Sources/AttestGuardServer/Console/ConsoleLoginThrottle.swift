import Foundation
import Synchronization

/// Bounds failed console logins: at most ``maximumFailuresPerAddress`` a minute from one peer address, and
/// ``maximumFailures`` a minute in all (past that, a minute's failures lock the login page for everyone until the
/// minute ends, rather than let a spread-out guesser through). A successful login is never counted. Memory is the
/// current minute's addresses.
final class ConsoleLoginThrottle: Sendable {
    static let maximumFailuresPerAddress = 10
    static let maximumFailures = 200

    private struct Window {
        var minute: Int64 = .min
        var byAddress: [String: Int] = [:]
        var total = 0
    }

    private let window = Mutex(Window())

    /// When the next attempt from `address` may be made, when it may not be made now.
    func refusedUntil(address: String?, at now: Date) -> Date? {
        let minute = Self.minute(of: now)
        return window.withLock { window in
            guard window.minute == minute else { return nil }
            let mine = window.byAddress[address ?? "", default: 0]
            guard mine >= Self.maximumFailuresPerAddress || window.total >= Self.maximumFailures else { return nil }
            return Date(timeIntervalSince1970: TimeInterval((minute + 1) * 60))
        }
    }

    /// Counts one failed login from `address`.
    func failed(address: String?, at now: Date) {
        let minute = Self.minute(of: now)
        window.withLock { window in
            if window.minute != minute { window = Window(minute: minute) }
            window.byAddress[address ?? "", default: 0] += 1
            window.total += 1
        }
    }

    private static func minute(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 60).rounded(.down))
    }
}
