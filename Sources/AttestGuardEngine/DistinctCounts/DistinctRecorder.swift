public import AttestGuardStore
import AttestVocabulary
public import Foundation
import EventLoopConcurrency
import Synchronization

/// The sightings behind distinct counts (`distinct.users.device.24h`), written without a write on the request
/// path: a verdict records which subjects it saw together (``record(appId:hashed:at:)``), to the minute, in a bounded
/// in-process map, and a flusher writes them to the store every interval. A member seen again in the same minute is
/// not written again, so a busy device costs one row per member and minute, not one per request.
///
/// Reads never wait for a flush: a read leaves this process's unwritten members out of the store's count and adds
/// them itself (``localMembers(of:since:)``), so a member is counted once whether or not the store holds it yet,
/// and a process always sees its own sightings; other processes see them after its next flush.
///
/// When the map holds more than `maximumPending` sightings (the store is down for a long while), the oldest tenth is
/// dropped at once and counted in `dropped`.
public final class DistinctRecorder: Sendable {
    let store: any DistinctCountStore
    let maximumPending: Int
    /// About how many sightings one statement of a flush writes: a hundred take PostgreSQL two to four milliseconds.
    let chunkRows: Int
    private let flushes = AsyncSerialGate()
    private let state = Mutex(State())

    /// Members by series, each with the minute it was last seen.
    typealias Batch = [DistinctSeries: [String: Int64]]

    private struct Seen: Hashable {
        var series: DistinctSeries
        var member: String
    }

    /// A request's subjects in one app. Seen again in the same minute, every sighting they make is already recorded:
    /// one look-up answers for all of them (up to twelve pairs, each a look-up in `seen` otherwise).
    private struct SeenTogether: Hashable {
        var appId: String
        var subjects: HashedSubjects
    }

    private struct State {
        var pending: Batch = [:]
        var count = 0
        var dropped = 0
        /// The running flush's sightings until they commit.
        var inFlight: Batch = [:]
        /// The sightings recorded in `minute`, written or not: seen again in that minute, they are not recorded again.
        var minute: Int64 = 0
        var seen: Set<Seen> = []
        /// The subjects recorded together in `minute`: a request that repeats them records nothing new.
        var seenTogether: Set<SeenTogether> = []

        mutating func add(_ series: DistinctSeries, member: String, minute: Int64) {
            // One look-up of the series: its members are changed in place.
            if Self.see(member, at: minute, in: &pending[series, default: [:]]) { count += 1 }
        }

        /// Moves `member`'s minute in `members` forward to `minute`; returns whether the member is new.
        private static func see(_ member: String, at minute: Int64, in members: inout [String: Int64]) -> Bool {
            let before = members[member]
            members[member] = max(before ?? minute, minute)
            return before == nil
        }

        mutating func returnInFlight() {
            for (series, members) in inFlight {
                for (member, minute) in members { add(series, member: member, minute: minute) }
            }
            inFlight = [:]
        }
    }

    public init(store: any DistinctCountStore, maximumPending: Int = 200_000, chunkRows: Int = 100) {
        self.store = store
        self.maximumPending = maximumPending
        self.chunkRows = max(1, chunkRows)
    }

    /// The start of the minute holding `instant` (``DistinctCount/minute(ofSecondsSince1970:)``).
    static func minute(of instant: Date) -> Int64 { DistinctCount.minute(ofSecondsSince1970: instant.timeIntervalSince1970) }

    /// Records that the request's subjects were seen together at `instant`: one sighting per distinct count whose
    /// two subjects the request has.
    func record(appId: String, hashed: HashedSubjects, at instant: Date) {
        guard hashed.subjectCount >= 2 else { return }
        let minute = Self.minute(of: instant)
        state.withLock { state in
            if minute > state.minute || state.seen.count > maximumPending || state.seenTogether.count > maximumPending {
                state.minute = max(state.minute, minute)
                state.seen.removeAll(keepingCapacity: true)
                state.seenTogether.removeAll(keepingCapacity: true)
            }
            if minute == state.minute, !state.seenTogether.insert(SeenTogether(appId: appId, subjects: hashed)).inserted { return }
            for (series, member) in hashed.distinctSightings(appId: appId) {
                if minute == state.minute, !state.seen.insert(Seen(series: series, member: member)).inserted { continue }
                state.add(series, member: member, minute: minute)
            }
            if state.count > maximumPending { Self.dropOldest(&state, excess: state.count - maximumPending + maximumPending / 10) }
        }
    }

    private static func dropOldest(_ state: inout State, excess: Int) {
        var entries = state.pending.flatMap { series, members in members.map { (series, $0.key, $0.value) } }
        entries.sort { $0.2 < $1.2 }
        for (series, member, _) in entries.prefix(excess) {
            state.pending[series]?[member] = nil
            if state.pending[series]?.isEmpty == true { state.pending[series] = nil }
            state.count -= 1
            state.dropped += 1
        }
    }

    /// This process's members of `series` seen at or after `since` that the store may not hold yet (pending, or in a
    /// flush not yet committed).
    func localMembers(of series: DistinctSeries, since: Int64) -> [String] {
        state.withLock { state in
            var members = Set<String>()
            for batch in [state.pending, state.inFlight] {
                for (member, minute) in batch[series] ?? [:] where minute >= since { members.insert(member) }
            }
            return Array(members)
        }
    }

    /// Writes the pending sightings, in statements of about `chunkRows`, pausing between statements so that the
    /// whole flush takes about `spread` (zero: no pauses). A minute's first flush rewrites every member seen in it,
    /// thousands of rows on a busy server: sent back to back, its statements would hold a database core for a few
    /// hundred milliseconds, and every request waiting behind them would see that in its latency. On a failure the
    /// sightings not yet committed go back to pending and the error is thrown.
    public func flush(spreadingOver spread: Duration = .zero) async throws {
        try await flushes.run { try await self.flushOnce(spreadingOver: spread) }
    }

    /// One statement of a flush: the sightings of whole series.
    struct Chunk {
        var sightings: [DistinctSighting] = []
        var series: [DistinctSeries] = []
    }

    /// `batch` cut into chunks of whole series, each closed once it holds `rows` sightings or more.
    static func chunks(of batch: Batch, rows: Int) -> [Chunk] {
        var chunks: [Chunk] = []
        var current = Chunk()
        for (series, members) in batch {
            let id = series.id
            for (member, minute) in members {
                current.sightings.append(DistinctSighting(series: id, member: DistinctSeries.member(member), lastSeen: minute))
            }
            current.series.append(series)
            if current.sightings.count >= rows {
                chunks.append(current)
                current = Chunk()
            }
        }
        if !current.sightings.isEmpty { chunks.append(current) }
        return chunks
    }

    private func flushOnce(spreadingOver spread: Duration) async throws {
        let batch = state.withLock { state -> Batch in
            let batch = state.pending
            state.pending.removeAll(keepingCapacity: true)
            state.count = 0
            state.inFlight = batch
            return batch
        }
        guard !batch.isEmpty else { return }
        let chunks = Self.chunks(of: batch, rows: chunkRows)
        var pacing = FlushPacing(statements: chunks.count, over: spread)
        for chunk in chunks {
            await pacing.nextStatement()
            try await write(chunk.sightings, of: chunk.series)
        }
        state.withLock { $0.inFlight = [:] }
    }

    private func write(_ chunk: [DistinctSighting], of series: [DistinctSeries]) async throws {
        guard !chunk.isEmpty else { return }
        do {
            try await store.addDistinctSightings(chunk)
        } catch {
            state.withLock { $0.returnInFlight() }
            throw error
        }
        state.withLock { state in
            for written in series { state.inFlight[written] = nil }
        }
    }

    /// Sightings not yet written, and sightings dropped because the map was full.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.count, $0.dropped) }
    }

    /// Drops every pending sighting, counting it in `dropped`, and returns how many: for a shutdown whose last flush
    /// ran out of time. Call it once no flush runs.
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

    /// How many slices a purge sweeps the series ids in: each purge deletes the expired sightings of one slice, so
    /// that it reads a bounded part of the index, and `slices` purges cover them all.
    static let purgeSlices = 16
    /// The next slice to purge: each process starts at a random one, so that processes started together sweep
    /// different slices.
    private let purgeSlice = Mutex(Int.random(in: 0..<DistinctRecorder.purgeSlices))

    /// Deletes the sightings of the next slice of series that no window reaches any more (seen before the longest
    /// window, 30 days, and a minute); returns how many. Run it every minute or so: sixteen runs sweep every series.
    public func purge(now: Date) async throws -> Int {
        let slice = purgeSlice.withLock { slice in
            defer { slice = (slice + 1) % Self.purgeSlices }
            return slice
        }
        let width = 256 / Self.purgeSlices
        let first = UInt8(slice * width), last = UInt8(slice * width + width - 1)
        let horizon = Self.minute(of: now) - Int64(SignalWindow.secondsRange.upperBound) - 60
        return try await store.purgeDistinctSightings(before: horizon, seriesFirstBytes: first...last)
    }
}
