public import Foundation
public import RiskStore
import Synchronization

/// Counts velocity events without a write on the request path: increments gather in a bounded in-process map
/// (one entry per bucket, so a burst of one key costs three entries, not three per event) and a flusher writes
/// them to the store in one batch every interval. Reads add this process's unflushed increments to the store's
/// sums, so a process always sees its own events; other processes see them after their next flush.
///
/// When the map holds more than `maximumPending` buckets (the store is down for a long while), the oldest are
/// dropped and counted in `dropped` rather than let memory grow without bound.
public final class VelocityRecorder: Sendable {
    let store: any VelocityStore
    let keying: VelocityKeying
    let maximumPending: Int
    let gate = FlushGate()
    private let state = Mutex(State())

    /// One counter series: its buckets are the pending increments.
    private struct Series: Hashable {
        var appId: String
        var subject: String
        var event: String
        var granularity: Int
    }

    private struct State {
        var pending: [Series: [Int64: Int64]] = [:]
        var count = 0
        var dropped = 0

        mutating func add(_ series: Series, bucket: Int64, _ amount: Int64) {
            let before = pending[series]?[bucket]
            pending[series, default: [:]][bucket, default: 0] += amount
            if before == nil { count += 1 }
        }
    }

    public init(store: any VelocityStore, keying: VelocityKeying, maximumPending: Int = 200_000) {
        self.store = store
        self.keying = keying
        self.maximumPending = maximumPending
    }

    /// Counts one event at `instant` for every subject the request has.
    public func record(_ event: VelocityEvent, appId: String, subjects: VelocitySubjects, at instant: Date) {
        let second = Int64(instant.timeIntervalSince1970.rounded(.down))
        var additions: [(Series, Int64)] = []
        for dimension in VelocitySubjects.dimensions {
            guard let value = subjects.value(of: dimension) else { continue }
            let subject = keying.subject(dimension, value)
            for (granularity, _) in VelocityWindow.granularities {
                additions.append((Series(appId: appId, subject: subject, event: event.rawValue, granularity: granularity),
                                  VelocityWindow.bucket(of: second, granularity: granularity)))
            }
        }
        state.withLock { state in
            for (series, bucket) in additions { state.add(series, bucket: bucket, 1) }
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
        await gate.beginWrite()
        do {
            try await flushUnderGate()
        } catch {
            await gate.endWrite()
            throw error
        }
        await gate.endWrite()
    }

    private func flushUnderGate() async throws {
        let batch = state.withLock { state in
            defer {
                state.pending.removeAll(keepingCapacity: true)
                state.count = 0
            }
            return state.pending
        }
        guard !batch.isEmpty else { return }
        var increments: [VelocityIncrement] = []
        for (series, buckets) in batch {
            for (bucket, count) in buckets {
                increments.append(VelocityIncrement(
                    key: .init(appId: series.appId, subject: series.subject, event: series.event, granularity: series.granularity, bucket: bucket),
                    count: count
                ))
            }
        }
        do {
            try await store.addVelocity(increments)
        } catch {
            state.withLock { state in
                for (series, buckets) in batch {
                    for (bucket, count) in buckets { state.add(series, bucket: bucket, count) }
                }
            }
            throw error
        }
    }

    /// Buckets not yet written, and increments dropped because the map was full.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.count, $0.dropped) }
    }

    /// Unflushed counts for sums (same order).
    func pending(appId: String, _ sums: [VelocitySum]) -> [Int64] {
        state.withLock { state in
            sums.map { sum in
                let series = Series(appId: appId, subject: sum.subject, event: sum.event, granularity: sum.granularity)
                return state.pending[series]?.reduce(into: Int64(0)) { total, entry in
                    if entry.key >= sum.since { total += entry.value }
                } ?? 0
            }
        }
    }

    /// Deletes buckets older than each granularity's retention.
    public func purge(now: Date) async throws -> Int {
        let second = Int64(now.timeIntervalSince1970)
        var deleted = 0
        for (granularity, retention) in VelocityWindow.granularities {
            deleted += try await store.purgeVelocity(granularity: granularity, before: second - Int64(retention))
        }
        return deleted
    }
}
