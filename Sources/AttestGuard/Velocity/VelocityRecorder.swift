public import Foundation
public import RiskStore
import AsyncDeadline
import Synchronization

/// Counts velocity events without a write on the request path: increments gather in a bounded in-process map
/// (one entry per minute bucket, so a burst of one key costs one entry, not one per event) and a flusher writes
/// them to the store in one batch every interval. Reads add this process's unflushed increments to the store's
/// sums, so a process always sees its own events; other processes see them after their next flush.
///
/// Reads never wait for a flush. Each flush carries a sequence number, committed with its counts as this
/// writer's latest flush, and a read gets that record in the snapshot of its sums: the batch being flushed (and
/// what was pending when the read began) is added only if the snapshot does not hold it yet. Flushes run one at a
/// time, so the sequence a snapshot shows covers every earlier batch.
///
/// When the map holds more than `maximumPending` buckets (the store is down for a long while), the oldest are
/// dropped and counted in `dropped` rather than let memory grow without bound.
public final class VelocityRecorder: Sendable {
    let store: any VelocityStore
    let keying: VelocityKeying
    let maximumPending: Int
    let clock: any EngineClock
    /// This recorder's id in the store's flush records: random, so every process (and every engine) has its own.
    let writer = UUID().uuidString.lowercased()
    private let flushes = AsyncSerialGate()
    private let state = Mutex(State())

    /// One counter series: its minute buckets are the pending increments.
    struct Series: Hashable {
        var appId: String
        var subject: String
        var event: String
    }

    typealias Batch = [Series: [Int64: Int64]]

    private struct State {
        var pending: Batch = [:]
        var count = 0
        var dropped = 0
        /// The batch a flush is writing, and its sequence (0: no flush running).
        var inFlight: Batch = [:]
        var inFlightSequence: Int64 = 0
        /// The sequence the next flush takes: it will carry everything pending now.
        var nextSequence: Int64 = 1

        mutating func add(_ series: Series, bucket: Int64, _ amount: Int64) {
            let before = pending[series]?[bucket]
            pending[series, default: [:]][bucket, default: 0] += amount
            if before == nil { count += 1 }
        }
    }

    public init(store: any VelocityStore, keying: VelocityKeying, maximumPending: Int = 200_000, clock: any EngineClock = SystemClock()) {
        self.store = store
        self.keying = keying
        self.maximumPending = maximumPending
        self.clock = clock
    }

    /// Counts one event at `instant` for every subject the request has.
    public func record(_ event: VelocityEvent, appId: String, subjects: VelocitySubjects, at instant: Date) {
        record(event, appId: appId, hashed: keying.hash(subjects), at: instant)
    }

    /// Counts one event at `instant` for every subject, already hashed.
    func record(_ event: VelocityEvent, appId: String, hashed: HashedSubjects, at instant: Date) {
        let bucket = VelocityWindow.bucket(of: Int64(instant.timeIntervalSince1970.rounded(.down)), granularity: VelocityWindow.minute)
        let additions = VelocitySubjects.dimensions.compactMap { dimension in
            hashed.value(of: dimension).map { Series(appId: appId, subject: $0, event: event.rawValue) }
        }
        state.withLock { state in
            for series in additions { state.add(series, bucket: bucket, 1) }
            if state.count > maximumPending { Self.dropOldest(&state, excess: state.count - maximumPending) }
        }
    }

    private static func dropOldest(_ state: inout State, excess: Int) {
        var entries = state.pending.flatMap { series, buckets in buckets.keys.map { (series, $0) } }
        entries.sort { $0.1 < $1.1 }
        for (series, bucket) in entries.prefix(excess) {
            state.pending[series]?[bucket] = nil
            if state.pending[series]?.isEmpty == true { state.pending[series] = nil }
            state.count -= 1
            state.dropped += 1
        }
    }

    /// Writes the pending increments; on failure they are put back (merged with newer ones) and the error thrown.
    public func flush() async throws {
        try await flushes.run { try await self.flushOnce() }
    }

    private func flushOnce() async throws {
        let (batch, sequence) = state.withLock { state -> (Batch, Int64) in
            guard !state.pending.isEmpty else { return ([:], 0) }
            let batch = state.pending
            state.pending.removeAll(keepingCapacity: true)
            state.count = 0
            state.inFlight = batch
            state.inFlightSequence = state.nextSequence
            state.nextSequence += 1
            return (batch, state.inFlightSequence)
        }
        guard sequence > 0 else { return }
        var increments: [VelocityIncrement] = []
        for (series, buckets) in batch {
            for (bucket, count) in buckets {
                increments.append(VelocityIncrement(
                    key: .init(appId: series.appId, subject: series.subject, event: series.event, granularity: VelocityWindow.minute, bucket: bucket),
                    count: count
                ))
            }
        }
        do {
            try await store.addVelocity(increments, flush: VelocityFlush(writer: writer, sequence: sequence, at: clock.now()))
            state.withLock { state in
                state.inFlight = [:]
                state.inFlightSequence = 0
            }
        } catch {
            // Not committed (as far as we know): the batch goes back to pending and takes a later sequence.
            state.withLock { state in
                state.inFlight = [:]
                state.inFlightSequence = 0
                for (series, buckets) in batch {
                    for (bucket, count) in buckets { state.add(series, bucket: bucket, count) }
                }
            }
            throw error
        }
    }

    /// Buckets not yet written, and buckets dropped (with all their increments) because the map was full.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.count, $0.dropped) }
    }

    /// This process's counts for some sums that the store may not hold yet: the pending map (to be committed
    /// under `pendingSequence`, or later after a failure) and the batch in flight (under its own sequence).
    struct LocalCounts: Sendable {
        var pending: [Int64]
        var pendingSequence: Int64
        var inFlight: [Int64]
        var inFlightSequence: Int64
    }

    /// Takes the local counts; read them before the store, then combine with ``totals(_:reading:)``.
    func localCounts(appId: String, _ sums: [VelocitySum]) -> LocalCounts {
        state.withLock { state in
            LocalCounts(
                pending: Self.totals(appId: appId, sums, in: state.pending), pendingSequence: state.nextSequence,
                inFlight: Self.totals(appId: appId, sums, in: state.inFlight), inFlightSequence: state.inFlightSequence
            )
        }
    }

    /// The store's sums plus whatever of the local counts its snapshot does not hold yet.
    func totals(_ local: LocalCounts, reading: VelocityReading) -> [Int64] {
        let addPending = reading.flushedSequence < local.pendingSequence
        let addInFlight = local.inFlightSequence > 0 && reading.flushedSequence < local.inFlightSequence
        return reading.totals.indices.map { index in
            guard index < local.pending.count else { return reading.totals[index] }
            return reading.totals[index] + (addPending ? local.pending[index] : 0) + (addInFlight ? local.inFlight[index] : 0)
        }
    }

    /// The sums: the store's, plus whatever of this process's increments the store's snapshot does not hold yet.
    func sums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64] {
        let local = localCounts(appId: appId, sums)
        return totals(local, reading: try await store.velocitySums(appId: appId, sums, writer: writer))
    }

    private static func totals(appId: String, _ sums: [VelocitySum], in batch: Batch) -> [Int64] {
        sums.map { sum in
            let series = Series(appId: appId, subject: sum.subject, event: sum.event)
            return batch[series]?.reduce(into: Int64(0)) { total, entry in
                if entry.key >= sum.since { total += entry.value }
            } ?? 0
        }
    }

    /// Rolls minute buckets up into hours and hours into days as they age (``VelocityWindow/rollups``), at most
    /// `batch` buckets per statement, and deletes day buckets past retention; returns how many buckets moved and
    /// how many were deleted. Run every minute or so by one or more processes: each moves what the others have not.
    public func compact(now: Date, batch: Int = 20_000) async throws -> (movedBuckets: Int, deletedBuckets: Int) {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        var moved = 0
        for rollup in VelocityWindow.rollups {
            let cutoff = VelocityWindow.rollupCutoff(rollup, now: second)
            while true {
                let count = try await store.rollUpVelocity(granularity: rollup.granularity, into: rollup.coarser, before: cutoff, limit: batch)
                moved += count
                if count < batch { break }
            }
        }
        let deleted = try await store.purgeVelocity(granularity: VelocityWindow.day, before: second - Int64(VelocityWindow.retention))
        // Flush records of processes that have not flushed for a day: gone (a live one writes its record again
        // with its next flush, and reads without a record count everything of theirs not yet flushed).
        _ = try await store.purgeVelocityFlushes(before: now.addingTimeInterval(-86_400))
        return (moved, deleted)
    }
}
