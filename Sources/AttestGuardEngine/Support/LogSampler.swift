import Foundation
import Synchronization

/// Keeps a log line that could come with every request from flooding the log: for each key, one line per
/// `interval` is let through, and the ones held back in between are counted and reported with the next one. Keys
/// must be bounded (an app, an endpoint and a pair of decisions, say): the sampler keeps one entry per key.
final class LogSampler: Sendable {
    private struct Entry {
        var lastLogged: Date
        var heldBack: Int
    }

    private let interval: TimeInterval
    private let entries = Mutex<[String: Entry]>([:])

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// Whether a line for `key` is logged at `now`: nil when it is held back, else how many were held back since the
    /// last one logged.
    func admit(_ key: String, now: Date) -> Int? {
        entries.withLock { entries in
            guard var entry = entries[key] else {
                entries[key] = Entry(lastLogged: now, heldBack: 0)
                return 0
            }
            guard now.timeIntervalSince(entry.lastLogged) >= interval else {
                entry.heldBack += 1
                entries[key] = entry
                return nil
            }
            entries[key] = Entry(lastLogged: now, heldBack: 0)
            return entry.heldBack
        }
    }
}
