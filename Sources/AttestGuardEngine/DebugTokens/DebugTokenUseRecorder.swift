public import AttestGuardStore
import EventLoopConcurrency
public import Foundation
import Synchronization

/// Debug-token uses counted in this process and added to the store behind the requests (``flush()``, from the
/// server's write-behind loop), so that a use costs a dictionary increment and a listing shows every process's uses.
/// A failed flush puts its counts back; at most ``maximumPending`` tokens wait (there are rarely more than a few
/// dozen), past which uses are dropped until a flush.
public final class DebugTokenUseRecorder: Sendable {
    let store: any DebugTokenStore
    let maximumPending: Int
    private let pending = Mutex<[String: DebugTokenUse]>([:])
    private let flushes = AsyncSerialGate()

    public init(store: any DebugTokenStore, maximumPending: Int = 10_000) {
        self.store = store
        self.maximumPending = maximumPending
    }

    /// Counts one use of token `id` at `at`.
    public func note(id: String, at: Date) {
        pending.withLock { pending in
            if var use = pending[id] {
                use.count += 1
                use.lastUsedAt = max(use.lastUsedAt, at)
                pending[id] = use
            } else if pending.count < maximumPending {
                pending[id] = DebugTokenUse(id: id, count: 1, lastUsedAt: at)
            }
        }
    }

    /// `token` with the uses this process has not written yet; exact only between two flushes
    /// (``betweenFlushes(_:)``).
    func addingPending(_ token: DebugTokenRecord) -> DebugTokenRecord {
        guard let use = pending.withLock({ $0[token.id] }) else { return token }
        var token = token
        token.uses += use.count
        token.lastUsedAt = max(token.lastUsedAt ?? use.lastUsedAt, use.lastUsedAt)
        return token
    }

    /// Runs `read`, a store read of tokens that adds this process's unwritten uses to them (``addingPending(_:)``),
    /// between two flushes: a flush takes its counts out of memory before its write commits, so a read beside it
    /// would find them in neither place and show too few uses. Listings are rare; a flush is one statement.
    func betweenFlushes<Tokens: Sendable>(_ read: @Sendable () async throws -> Tokens) async throws -> Tokens {
        try await flushes.run(read)
    }

    /// Adds the uses counted since the last flush to the store in one call; a failure puts them back for the next.
    public func flush() async throws {
        try await flushes.run { try await self.flushOnce() }
    }

    private func flushOnce() async throws {
        let batch = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.addDebugTokenUses(batch.values.sorted { $0.id < $1.id })
        } catch {
            pending.withLock { pending in
                pending.merge(batch) { newer, older in
                    DebugTokenUse(id: newer.id, count: newer.count + older.count, lastUsedAt: max(newer.lastUsedAt, older.lastUsedAt))
                }
            }
            throw error
        }
    }

    /// Drops the uses waiting for a flush (shutdown, once the last flush's budget is spent); returns how many.
    public func dropPending() -> Int {
        pending.withLock { pending in
            defer { pending = [:] }
            return Int(pending.values.reduce(0) { $0 + $1.count })
        }
    }
}
