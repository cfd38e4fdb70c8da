import Synchronization
import EventLoopConcurrency

/// Gathers concurrent calls into batches that run as one operation: group commit (PostgreSQL's statements of accepted
/// assertions and of verdicts' reads, the SQLite store's transactions of accepted assertions). At most `maximumRunning`
/// batches run at once; a call that finds one of those slots free runs at once, alone, so a quiet process answers as
/// fast as without batching. While every slot is busy, calls queue, and the call that finishes a batch hands its slot
/// to the first one queued, which runs up to `maximumBatch` queued calls as the next batch. The batch size follows the
/// load with no timer and no added wait: the longest a call waits for a batch is the running batches' time.
///
/// A batch runs with the `run` its leading call passed (every call passes the same one), which also gets the instant
/// the batch's oldest call was submitted (to keep that call's deadline): it answers each entry, in the order given, so
/// one entry's failure is its own. A thrown error fails every entry of the batch. A batch of several entries runs in a
/// task of its own, so that the caller who leads it going away (a client that hung up) does not cancel the others'
/// work.
package final class GroupCommit<Entry: Sendable, Answer: Sendable>: Sendable {
    package typealias Run = @Sendable ([Entry], _ oldestSubmitted: ContinuousClock.Instant) async throws -> [Result<Answer, any Error>]

    /// The most entries one batch takes.
    package let maximumBatch: Int
    /// The most batches that run at once.
    package let maximumRunning: Int
    private let state = Mutex(State())
    private let batchesRun = Atomic<Int>(0)
    private let entriesRun = Atomic<Int>(0)

    /// The calls waiting for a batch.
    package var queued: Int { state.withLock { $0.queued } }

    /// The batches run so far and the entries they carried.
    package var counts: (batches: Int, entries: Int) {
        (batchesRun.load(ordering: .relaxed), entriesRun.load(ordering: .relaxed))
    }

    /// A call waiting in the queue, resumed with its answer or with a batch to lead.
    private struct Waiter: Sendable {
        var entry: Entry
        var submitted: ContinuousClock.Instant
        var continuation: CheckedContinuation<Turn, Never>
    }

    private enum Turn: Sendable {
        case answered(Result<Answer, any Error>)
        /// Lead a batch: the waiter's own entry first, then these.
        case lead([Waiter])
    }

    private struct State: ~Copyable {
        var queue: [Waiter] = []
        /// The index of the queue's first waiter (the queue is drained from the front without moving elements).
        var head = 0
        var running = 0

        var queued: Int { queue.count - head }

        mutating func take(_ count: Int) -> [Waiter] {
            let taken = Array(queue[head..<head + count])
            head += count
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return taken
        }
    }

    package init(maximumBatch: Int, maximumRunning: Int) {
        self.maximumBatch = max(1, maximumBatch)
        self.maximumRunning = max(1, maximumRunning)
    }

    /// Runs `entry` in the next batch that has room and answers it.
    package func submit(_ entry: Entry, run: @escaping Run) async throws -> Answer {
        let submitted = ContinuousClock.now
        let maximumRunning = self.maximumRunning
        let leadsNow = state.withLock { state in
            guard state.running < maximumRunning else { return false }
            state.running += 1
            return true
        }
        if leadsNow { return try await lead(entry, submitted: submitted, with: [], run: run) }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let slotFreed = state.withLock { state in
                if state.running < maximumRunning {
                    state.running += 1
                    return true
                }
                state.queue.append(Waiter(entry: entry, submitted: submitted, continuation: continuation))
                return false
            }
            if slotFreed { continuation.resume(returning: .lead([])) }
        }
        switch turn {
        case .answered(let result): return try result.get()
        case .lead(let others): return try await lead(entry, submitted: submitted, with: others, run: run)
        }
    }

    /// Runs `entry` and `others` as one batch in a slot this call holds, answers the others, and hands the slot to
    /// the first queued call (or frees it).
    private func lead(_ entry: Entry, submitted: ContinuousClock.Instant, with others: [Waiter], run: @escaping Run) async throws -> Answer {
        let entries = [entry] + others.map(\.entry)
        // The leader was queued before the others it took.
        let oldest = others.map(\.submitted).reduce(submitted, min)
        batchesRun.add(1, ordering: .relaxed)
        entriesRun.add(entries.count, ordering: .relaxed)
        let answers: [Result<Answer, any Error>]
        do {
            if others.isEmpty {
                answers = try await run(entries, oldest)
            } else {
                // Started on this thread and kept on the caller's event loop (``PreferredTaskExecutor``): a plain
                // `Task` runs on the global pool, and each hop there and back wakes a thread.
                answers = try await Task.immediate(executorPreference: PreferredTaskExecutor.current) {
                    try await run(entries, oldest)
                }.value
            }
        } catch {
            answers = Array(repeating: .failure(error), count: entries.count)
        }
        for (index, waiter) in others.enumerated() {
            waiter.continuation.resume(returning: .answered(Self.answer(answers, at: index + 1)))
        }
        let maximumBatch = self.maximumBatch
        let next = state.withLock { state -> [Waiter]? in
            guard state.queued > 0 else {
                state.running -= 1
                return nil
            }
            return state.take(min(maximumBatch, state.queued))
        }
        if let next, let first = next.first {
            first.continuation.resume(returning: .lead(Array(next.dropFirst())))
        }
        return try Self.answer(answers, at: 0).get()
    }

    private static func answer(_ answers: [Result<Answer, any Error>], at index: Int) -> Result<Answer, any Error> {
        guard answers.indices.contains(index) else {
            return .failure(StoreError(.queryFailed, "the batch answered \(answers.count) of its entries"))
        }
        return answers[index]
    }
}
