public import AttestGuardStore
public import AttestVocabulary
public import Foundation
import Synchronization

/// The keys retired (revoked, or superseded by a newer attestation) recently enough that a session token issued for
/// them may still be unexpired: a `token` route refuses such a token without a store round trip.
///
/// This process notes its own revocations and supersessions at once (``note(_:)``); the others' reach it through
/// ``refresh(from:now:)``, which the server runs every `sessionTokens.revocationRefreshSeconds`, so a key retired through any
/// process stops its tokens everywhere within that period (contract: "Session tokens"). Each refresh reads back a
/// little before its last one (``overlap``), so a retirement committed late with an earlier instant, or stamped by a
/// process whose clock runs less than that behind, is still read. Keys retired longer ago than ``horizon`` are
/// dropped: every token of theirs has expired.
///
/// The set is only as good as its last read: until the first read, and once the last successful one is older than
/// ``staleAfter`` (the store unreachable), ``isCurrent`` is false and tokens are refused rather than admitted without
/// knowing which keys were retired.
public final class RetiredKeyBook: Sendable {
    /// How far before the previous refresh each refresh reads again.
    public static let overlap: TimeInterval = 60
    /// The shortest ``staleAfter``: a store that misses a few refreshes for a minute does not stop token routes.
    public static let minimumStaleness: Duration = .seconds(60)
    /// The most keys one store read returns; a refresh pages on until a read returns fewer.
    static let pageSize = 5_000

    /// How long a retired key is held: the longest session token lifetime of any app, plus the clock skew tolerated
    /// and ``overlap``. Zero when no app issues tokens (nothing is held, nothing is read).
    public let horizon: TimeInterval
    /// How long after the last successful read the set still counts as current (three refresh periods, at least a
    /// minute). Measured on the monotonic clock: it bounds how late a revocation may be seen, not a domain instant.
    public let staleAfter: Duration
    private let state = Mutex<State>(State())

    private struct State {
        var keys: [Entry: (status: KeyStatus, changedAt: Date)] = [:]
        /// The engine-clock instant the last successful refresh read up to.
        var readAt: Date?
        /// When the last successful refresh finished, on the monotonic clock.
        var readWhen: ContinuousClock.Instant?
    }

    private struct Entry: Hashable {
        var appId: String
        var keyId: Data
    }

    public init(horizon: TimeInterval, staleAfter: Duration = minimumStaleness) {
        self.horizon = max(0, horizon)
        self.staleAfter = staleAfter
    }

    /// Whether the set may be trusted: read from the store within ``staleAfter``, or nothing to hold.
    public var isCurrent: Bool {
        guard horizon > 0 else { return true }
        guard let readWhen = state.withLock({ $0.readWhen }) else { return false }
        return ContinuousClock.now - readWhen < staleAfter
    }

    /// The status of `keyId` of `appId` when it is retired and held; `nil` for a key this process knows no retirement of.
    public func retirement(appId: String, keyId: Data) -> KeyStatus? {
        state.withLock { $0.keys[Entry(appId: appId, keyId: keyId)]?.status }
    }

    /// How many retired keys are held.
    public var count: Int { state.withLock { $0.keys.count } }

    /// Holds keys this process retired (or read retired), at once.
    public func note(_ keys: [RetiredKey]) {
        guard horizon > 0, !keys.isEmpty else { return }
        state.withLock { state in
            for key in keys where key.status != .active {
                let entry = Entry(appId: key.appId, keyId: key.keyId)
                // A revocation is final whatever its instant (its process's clock may run behind the supersession's);
                // of two words of one kind, the later is held, for longer.
                if let held = state.keys[entry] {
                    if held.status == .revoked, key.status != .revoked { continue }
                    if held.status == key.status, held.changedAt >= key.changedAt { continue }
                }
                state.keys[entry] = (key.status, key.changedAt)
            }
        }
    }

    /// Reads the keys retired since a little before the last refresh (``horizon`` ago at the first), then drops the
    /// keys retired longer ago than ``horizon``. Returns how many keys the store returned.
    /// - Throws: the store's failure; what is held stays.
    @discardableResult
    public func refresh(from store: any RetiredKeyStore, now: Date) async throws -> Int {
        guard horizon > 0 else { return 0 }
        let oldest = now.addingTimeInterval(-horizon)
        let readAt = state.withLock { $0.readAt }
        var cursor = RetiredKey.Cursor(from: max(oldest, (readAt ?? oldest).addingTimeInterval(-Self.overlap)))
        var read = 0
        while true {
            let page = try await store.retiredKeys(after: cursor, limit: Self.pageSize)
            note(page)
            read += page.count
            guard page.count == Self.pageSize, let last = page.last else { break }
            cursor = last.cursor
        }
        state.withLock { state in
            state.keys = state.keys.filter { $0.value.changedAt >= oldest }
            state.readAt = now
            state.readWhen = .now
        }
        return read
    }
}
