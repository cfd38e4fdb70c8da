public import AttestVocabulary
public import Foundation
public import AttestGuardStore
import EventLoopConcurrency
import Synchronization

/// Counts velocity events without a write on the request path: increments gather in a bounded in-process map
/// (one entry per minute bucket, so a burst of one key costs one entry, not one per event) and a flusher writes
/// them to the store every interval. Reads add this process's unflushed increments to the store's sums, so a
/// process always sees its own events; other processes see them after its next flush.
///
/// A flush is written in chunks of about `chunkRows` buckets, each its own short transaction, optionally spread
/// over some time: one large statement would take a database core for milliseconds at a time, and every request
/// waiting behind it would see that in its latency (chunks stay small enough not to show in the score route's tail
/// latency). Every series belongs to one of ``slots`` slots (by its
/// hash), a chunk holds whole slots in slot order, and it commits its counts together with this writer's flush
/// record at sequence `flush × slots + the chunk's last slot`; so the sequence of any series' next write is known
/// in advance (`flush × slots + its slot`), chunks commit in increasing sequence, and the record a snapshot shows
/// tells which of this writer's chunks it holds.
///
/// Reads never wait for a flush. A read gets the flush record in the snapshot of its sums, and adds the local
/// count of a series (pending, or in a chunk not yet committed) only if the snapshot's sequence is below that
/// series' sequence. Flushes run one at a time, so a snapshot showing a sequence holds every earlier one.
///
/// When the map holds more than `maximumPending` buckets (the store is down for a long while), the oldest tenth is
/// dropped at once and counted in `dropped` rather than let memory grow without bound; at once, so that finding the
/// oldest (a sort of the whole map) happens once per many events, not on every event while the store stays down.
public final class VelocityRecorder: Sendable {
    let store: any VelocityStore
    let keying: VelocityKeying
    let maximumPending: Int
    /// About how many buckets one chunk of a flush writes (whole slots, so a chunk may hold more).
    let chunkRows: Int
    let clock: any EngineClock
    /// This recorder's id in the store's flush records: random, so every process (and every engine) has its own.
    let writer = UUID().uuidString.lowercased()
    private let flushes = AsyncSerialGate()
    private let state = Mutex(State())

    /// One counter series: its minute buckets are the pending increments.
    ///
    /// Its hash is computed once, when it is made: a verdict's series are each looked up in two or three maps (the
    /// slot, pending, in flight), and hashing the three strings (about 90 bytes) each time would cost more than the
    /// look-ups themselves. Equality still compares the strings, which holds the hash to it.
    struct Series: Hashable {
        let appId: String
        let subject: String
        let event: String
        /// The hash of the three strings, under this process's seed.
        private let fieldsHash: Int

        init(appId: String, subject: String, event: String) {
            self.appId = appId
            self.subject = subject
            self.event = event
            var hasher = Hasher()
            hasher.combine(appId)
            hasher.combine(subject)
            hasher.combine(event)
            fieldsHash = hasher.finalize()
        }

        static func == (left: Series, right: Series) -> Bool {
            left.fieldsHash == right.fieldsHash && left.appId == right.appId && left.subject == right.subject && left.event == right.event
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(fieldsHash)
        }
    }

    typealias Batch = [Series: [Int64: Int64]]

    /// How many slots the series are spread over: a flush writes at most this many chunks, so a flush of more than
    /// `slots × chunkRows` buckets (12,800 at the defaults) writes larger chunks than `chunkRows`.
    static let slots: Int64 = 256

    /// The slot of a series: stable for the life of the process (Swift's hash seed is per process), which is as
    /// long as this writer's sequences matter.
    static func slot(of series: Series) -> Int64 {
        Int64(UInt(bitPattern: series.hashValue) % UInt(slots))
    }

    private struct State {
        var pending: Batch = [:]
        var count = 0
        var dropped = 0
        /// The series of the running flush whose chunks have not committed yet, and that flush's number (0: none).
        var inFlight: Batch = [:]
        var inFlightFlush: Int64 = 0
        /// The number the next flush takes: everything pending now is written under it (or a later one).
        var nextFlush: Int64 = 1

        mutating func add(_ series: Series, bucket: Int64, _ amount: Int64) {
            // One look-up of the series: its buckets are changed in place.
            if Self.increment(&pending[series, default: [:]], bucket: bucket, by: amount) { count += 1 }
        }

        /// Adds `amount` to `bucket` of `buckets`; returns whether the bucket is new.
        private static func increment(_ buckets: inout [Int64: Int64], bucket: Int64, by amount: Int64) -> Bool {
            let isNew = buckets[bucket] == nil
            buckets[bucket, default: 0] += amount
            return isNew
        }

        /// Puts the uncommitted part of the running flush back into pending (merged with newer increments).
        mutating func returnInFlight() {
            for (series, buckets) in inFlight {
                for (bucket, amount) in buckets { add(series, bucket: bucket, amount) }
            }
            inFlight = [:]
            inFlightFlush = 0
        }
    }

    public init(
        store: any VelocityStore, keying: VelocityKeying, maximumPending: Int = 200_000, chunkRows: Int = 50,
        clock: any EngineClock = SystemClock()
    ) {
        self.store = store
        self.keying = keying
        self.maximumPending = maximumPending
        self.chunkRows = max(1, chunkRows)
        self.clock = clock
    }

    /// Counts one event at `instant` for every subject the request has.
    public func record(_ event: VelocityEvent, appId: String, subjects: VelocitySubjects, at instant: Date) {
        record(event, appId: appId, hashed: keying.hash(subjects), at: instant)
    }

    /// Counts one event at `instant` for every subject, already hashed.
    func record(_ event: VelocityEvent, appId: String, hashed: HashedSubjects, at instant: Date) {
        let bucket = VelocityWindow.bucket(of: Int64(instant.timeIntervalSince1970.rounded(.down)), granularity: VelocityWindow.minute)
        let additions = VelocityDimension.allCases.compactMap { dimension in
            hashed.value(of: dimension).map { Series(appId: appId, subject: $0, event: event.rawValue) }
        }
        state.withLock { state in
            for series in additions { state.add(series, bucket: bucket, 1) }
            if state.count > maximumPending { Self.dropOldest(&state, excess: state.count - maximumPending + maximumPending / 10) }
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

    /// Writes the pending increments, chunk by chunk, pausing between chunks so that the whole flush takes about
    /// `spread` (zero: no pauses). On a failure the chunks not yet committed go back to pending (merged with newer
    /// increments) and the error is thrown; the committed ones stay written.
    public func flush(spreadingOver spread: Duration = .zero) async throws {
        try await flushes.run { try await self.flushOnce(spreadingOver: spread) }
    }

    private func flushOnce(spreadingOver spread: Duration) async throws {
        let (batch, flushNumber) = state.withLock { state -> (Batch, Int64) in
            guard !state.pending.isEmpty else { return ([:], 0) }
            let batch = state.pending
            state.pending.removeAll(keepingCapacity: true)
            state.count = 0
            state.inFlight = batch
            state.inFlightFlush = state.nextFlush
            state.nextFlush += 1
            return (batch, state.inFlightFlush)
        }
        guard flushNumber > 0 else { return }
        let chunks = Self.chunks(of: batch, rows: chunkRows)
        var pacing = FlushPacing(statements: chunks.count, over: spread)
        for chunk in chunks {
            await pacing.nextStatement()
            let sequence = flushNumber * Self.slots + chunk.lastSlot
            do {
                try await store.addVelocity(chunk.increments, flush: VelocityFlush(writer: writer, sequence: sequence, at: clock.now()))
            } catch {
                // Not committed (as far as we know): this chunk and the later ones go back to pending and take a later flush's sequences.
                state.withLock { $0.returnInFlight() }
                throw error
            }
            state.withLock { state in
                for series in chunk.series { state.inFlight[series] = nil }
            }
        }
        state.withLock { state in
            state.inFlight = [:]
            state.inFlightFlush = 0
        }
    }

    /// One transaction of a flush: every series of some consecutive slots, with the last of those slots.
    struct Chunk {
        var series: [Series] = []
        var increments: [VelocityIncrement] = []
        var lastSlot: Int64 = 0
    }

    /// The batch cut into chunks of whole slots, in slot order, each closed once it holds `rows` buckets or more.
    static func chunks(of batch: Batch, rows: Int) -> [Chunk] {
        var bySlot = [[(Series, [Int64: Int64])]](repeating: [], count: Int(slots))
        for entry in batch { bySlot[Int(slot(of: entry.key))].append(entry) }
        var chunks: [Chunk] = []
        var current = Chunk()
        for (slot, entries) in bySlot.enumerated() where !entries.isEmpty {
            for (series, buckets) in entries {
                current.series.append(series)
                for (bucket, count) in buckets {
                    current.increments.append(VelocityIncrement(
                        key: .init(appId: series.appId, subject: series.subject, event: series.event, granularity: VelocityWindow.minute, bucket: bucket),
                        count: count
                    ))
                }
            }
            current.lastSlot = Int64(slot)
            if current.increments.count >= rows {
                chunks.append(current)
                current = Chunk()
            }
        }
        if !current.series.isEmpty { chunks.append(current) }
        return chunks
    }

    /// Buckets not yet written, and buckets dropped (with all their increments) because the map was full.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.count, $0.dropped) }
    }

    /// Drops every pending bucket, counting it in `dropped`, and returns how many: for a shutdown whose last flush
    /// ran out of time (nothing will write them). Call it once no flush runs.
    public func dropPending() -> Int {
        state.withLock { state in
            state.returnInFlight()
            let count = state.count
            state.pending.removeAll()
            state.count = 0
            state.dropped += count
            return count
        }
    }

    /// This process's counts for some sums that the store may not hold yet, each with the flush sequence under
    /// which it is (or will be) committed: the pending map's and the running flush's uncommitted chunks' (0: none).
    struct LocalCounts: Sendable {
        var pending: [Int64]
        var pendingSequences: [Int64]
        var inFlight: [Int64]
        var inFlightSequences: [Int64]
    }

    /// Takes the local counts; read them before the store, then combine with ``totals(_:reading:)``.
    func localCounts(appId: String, _ sums: [VelocitySum]) -> LocalCounts {
        let series = sums.map { Series(appId: appId, subject: $0.subject, event: $0.event) }
        let slots = series.map(Self.slot(of:))
        return state.withLock { state in
            LocalCounts(
                pending: Self.totals(series, sums, in: state.pending),
                pendingSequences: slots.map { state.nextFlush * Self.slots + $0 },
                inFlight: Self.totals(series, sums, in: state.inFlight),
                inFlightSequences: slots.map { state.inFlightFlush > 0 ? state.inFlightFlush * Self.slots + $0 : 0 }
            )
        }
    }

    /// The store's sums plus whatever of the local counts its snapshot does not hold yet.
    func totals(_ local: LocalCounts, reading: VelocityReading) -> [Int64] {
        reading.totals.indices.map { index in
            guard index < local.pending.count else { return reading.totals[index] }
            let flushed = reading.flushedSequence
            let pending = flushed < local.pendingSequences[index] ? local.pending[index] : 0
            let inFlight = local.inFlightSequences[index] > 0 && flushed < local.inFlightSequences[index] ? local.inFlight[index] : 0
            return reading.totals[index] + pending + inFlight
        }
    }

    /// The sums: the store's, plus whatever of this process's increments the store's snapshot does not hold yet.
    func sums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64] {
        let local = localCounts(appId: appId, sums)
        return totals(local, reading: try await store.velocitySums(appId: appId, sums, writer: writer))
    }

    /// Each sum's count in `batch`: the buckets of its series (`series`, one per sum) at or after its start.
    private static func totals(_ series: [Series], _ sums: [VelocitySum], in batch: Batch) -> [Int64] {
        guard !batch.isEmpty else { return [Int64](repeating: 0, count: sums.count) }
        return zip(series, sums).map { series, sum in
            batch[series]?.reduce(into: Int64(0)) { total, entry in
                if entry.key >= sum.since { total += entry.value }
            } ?? 0
        }
    }

    /// Rolls minute buckets up into hours and hours into days as they age (``VelocityWindow/rollups``), at most
    /// `batch` buckets per statement, and deletes day buckets past retention; returns how many buckets moved and
    /// how many were deleted. Run every minute or so by one or more processes: each moves what the others have not.
    ///
    /// The minute buckets of a whole hour come due at once (every series active in that hour has up to 60), so the
    /// rollup is paced: after each statement it pauses so that it keeps the store busy at most `dutyCycle` of the
    /// time (a statement of 5 ms at 0.25 is followed by 15 ms of rest; per process: several processes compacting
    /// at once each keep to it). Moved in one go, an hour of many busy series would hold a database core for a long
    /// while, and every request behind it would wait. A rollup that lags costs nothing but rows: reads sum
    /// every tier, so a bucket counts once wherever it is. Cancellation stops it between statements.
    public func compact(now: Date, batch: Int = 500, dutyCycle: Double = 0.25) async throws -> (movedBuckets: Int, deletedBuckets: Int) {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        let batch = max(1, batch)
        let restPerBusy = dutyCycle > 0 && dutyCycle < 1 ? (1 - dutyCycle) / dutyCycle : 0
        let timer = ContinuousClock()
        var moved = 0
        for rollup in VelocityWindow.rollups {
            let cutoff = VelocityWindow.rollupCutoff(rollup, now: second)
            while true {
                try Task.checkCancellation()
                let started = timer.now
                let count = try await store.rollUpVelocity(granularity: rollup.granularity, into: rollup.coarser, before: cutoff, limit: batch)
                moved += count
                if count < batch { break }
                if restPerBusy > 0 { try await Task.sleep(for: (timer.now - started) * restPerBusy) }
            }
        }
        try Task.checkCancellation()
        let deleted = try await store.purgeVelocity(granularity: VelocityWindow.day, before: second - Int64(VelocityWindow.retention))
        // Flush records of processes that have not flushed for a day: gone (a live one writes its record again
        // with its next flush, and reads without a record count everything of theirs not yet flushed).
        _ = try await store.purgeVelocityFlushes(before: now.addingTimeInterval(-86_400))
        return (moved, deleted)
    }
}
