public import AttestGuardStore
import EventLoopConcurrency
public import Foundation
import Synchronization

/// Which keys verdicts name, written behind the request path: a key's last use keeps its receipt in the refresh
/// schedule, and brings back a receipt that left it as dormant (``ReceiptRefreshScheduler``).
///
/// A use is written at most once per `granularity` per key and process: dormancy is counted in days, so an hour's
/// precision costs nothing, and a key scored a thousand times an hour costs one row update. Pending uses are bounded
/// (`maximumPending`, past which new keys are dropped and counted until a flush), and so is the memory of what was
/// written (`maximumRemembered`, about 100 bytes a key, past which uses older than the granularity are forgotten).
public final class KeyUseRecorder: Sendable {
    let store: any ReceiptScheduleStore
    let granularity: Duration
    let maximumPending: Int
    let maximumRemembered: Int
    private let state = Mutex(State())
    /// Flushes run one at a time, as the decision log's do: a failed batch goes back before the next is taken, and a
    /// flush returns only once every use noted before it began is written (the shutdown flush among them).
    private let flushes = AsyncSerialGate()

    private struct State {
        var pending: [UsedKey: Date] = [:]
        var written: [UsedKey: Date] = [:]
        var dropped = 0
    }

    /// A key's identity across apps.
    private struct UsedKey: Hashable {
        var appId: String
        var keyId: Data
    }

    public init(store: any ReceiptScheduleStore, granularity: Duration = .seconds(3_600), maximumPending: Int = 100_000, maximumRemembered: Int = 250_000) {
        self.store = store
        self.granularity = granularity
        self.maximumPending = maximumPending
        self.maximumRemembered = maximumRemembered
    }

    /// Notes that a verdict named the key at `at`.
    public func note(appId: String, keyId: Data, at: Date) {
        let key = UsedKey(appId: appId, keyId: keyId)
        let granularity = self.granularity.timeInterval
        state.withLock { state in
            if let written = state.written[key], at.timeIntervalSince(written) < granularity { return }
            if let pending = state.pending[key] {
                if pending < at { state.pending[key] = at }
                return
            }
            guard state.pending.count < maximumPending else {
                state.dropped += 1
                return
            }
            state.pending[key] = at
        }
    }

    /// Writes the uses noted since the last flush in one store call; a failure puts them back for the next flush.
    /// A flush called while another runs waits for it, then writes what is left.
    public func flush() async throws {
        try await flushes.run { try await self.flushOnce() }
    }

    private func flushOnce() async throws {
        let batch = state.withLock { state in
            let batch = state.pending
            state.pending = [:]
            return batch
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.recordKeyUse(batch.map { KeyUse(appId: $0.key.appId, keyId: $0.key.keyId, at: $0.value) })
        } catch {
            state.withLock { state in
                state.pending.merge(batch) { max($0, $1) }
            }
            throw error
        }
        let latest = batch.values.max() ?? .distantPast
        let granularity = self.granularity.timeInterval
        state.withLock { state in
            state.written.merge(batch) { max($0, $1) }
            if state.written.count > maximumRemembered {
                state.written = state.written.filter { latest.timeIntervalSince($0.value) < granularity }
                // More keys in use within the granularity than it may remember: forget them all, at the cost of
                // writing each once more (a conditional update that changes nothing).
                if state.written.count > maximumRemembered { state.written = [:] }
            }
        }
    }

    /// Drops the uses waiting for a flush (shutdown, once the last flush's budget is spent); returns how many.
    public func dropPending() -> Int {
        state.withLock { state in
            defer { state.pending = [:] }
            return state.pending.count
        }
    }

    /// Uses waiting for a flush, and uses dropped because too many were waiting.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.pending.count, $0.dropped) }
    }
}
