import DequeModule
import EventLoopConcurrency
public import Foundation
public import AttestGuardStore
import Synchronization

/// Writes every verdict to the decision log without a write on the request path: entries queue in memory
/// (bounded: past `maximumQueued` the oldest are dropped and counted) and ``flush(spreadingOver:)`` writes them in
/// batches of `batchSize`, each a short statement (a long one would hold a database core, and the requests behind
/// it, for milliseconds, and show in the score route's tail latency; small batches also cost less per row); the
/// server's write-behind service calls it every second and purges entries past the retention every few minutes.
/// The queue is a ring buffer, so a full one (the log's table failing while verdicts go on) costs a request O(1),
/// not a shift of every queued entry.
public final class DecisionLogWriter: Sendable {
    let store: any DecisionLogStore
    public let retentionDays: Int
    let maximumQueued: Int
    let batchSize: Int
    private let state = Mutex(State())
    /// Flushes run one at a time, so that a flush returns only once every entry queued before it began is written
    /// (or back in the queue after a failure): a caller never races the write-behind service's flush in flight.
    private let flushes = AsyncSerialGate()

    private struct State {
        var queue = Deque<DecisionLogEntry>()
        var dropped = 0
    }

    public init(store: any DecisionLogStore, retentionDays: Int = 30, maximumQueued: Int = 100_000, batchSize: Int = 50) {
        self.store = store
        self.retentionDays = retentionDays
        self.maximumQueued = maximumQueued
        self.batchSize = max(1, batchSize)
    }

    func append(_ entry: DecisionLogEntry) {
        state.withLock { state in
            state.queue.append(entry)
            if state.queue.count > maximumQueued {
                let excess = state.queue.count - maximumQueued
                state.queue.removeFirst(excess)
                state.dropped += excess
            }
        }
    }

    /// Writes what was queued when the flush began, a batch at a time, pausing between batches so that the whole
    /// flush takes about `spread` (zero: no pauses). Entries queued meanwhile wait for the next flush: chasing them
    /// would write a trickle of one-row batches under load. A failed batch goes back to the front of the queue. A
    /// flush called while another runs waits for it, then writes what is left.
    public func flush(spreadingOver spread: Duration = .zero) async throws {
        try await flushes.run { try await self.flushOnce(spreadingOver: spread) }
    }

    private func flushOnce(spreadingOver spread: Duration) async throws {
        var remaining = state.withLock { $0.queue.count }
        var pacing = FlushPacing(statements: (remaining + batchSize - 1) / batchSize, over: spread)
        while remaining > 0 {
            await pacing.nextStatement()
            let batch = state.withLock { state in
                let batch = Array(state.queue.prefix(min(batchSize, remaining)))
                state.queue.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            remaining -= batch.count
            do {
                try await store.appendDecisions(batch)
            } catch {
                state.withLock { state in state.queue.prepend(contentsOf: batch) }
                throw error
            }
        }
    }

    /// Entries queued, and entries dropped because the queue was full.
    public var backlog: (queued: Int, dropped: Int) {
        state.withLock { ($0.queue.count, $0.dropped) }
    }

    /// Drops every queued entry, counting it in `dropped`, and returns how many: for a shutdown whose last flush
    /// ran out of time (nothing will write them).
    public func dropQueued() -> Int {
        state.withLock { state in
            let count = state.queue.count
            state.queue.removeAll()
            state.dropped += count
            return count
        }
    }

    /// Deletes entries older than the retention.
    public func purge(now: Date) async throws -> Int {
        try await store.purgeDecisions(before: now.addingTimeInterval(-Double(retentionDays) * 86_400))
    }
}
