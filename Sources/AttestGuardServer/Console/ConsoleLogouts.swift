import Foundation
import Synchronization

/// Sessions ended by `POST /console/logout` before their expiry: a copy of the cookie (a shared machine, a
/// captured request) no longer opens a page on this process. Entries are dropped once the session would have
/// expired anyway, so the list holds at most one console lifetime of logouts.
final class ConsoleLogouts: Sendable {
    private let ended = Mutex<[String: Date]>([:])

    /// Ends the session whose cookie value is `token`, valid until `expiresAt`.
    func end(_ token: String, expiresAt: Date, now: Date) {
        ended.withLock { ended in
            ended = ended.filter { $0.value > now }
            ended[token] = expiresAt
        }
    }

    /// Whether the session whose cookie value is `token` was ended.
    func isEnded(_ token: String) -> Bool {
        ended.withLock { $0[token] != nil }
    }
}
