public import AttestGuardStore
import EventLoopConcurrency
public import Foundation
import Synchronization

/// Forward-auth answers counted in this process per app, route, outcome and five-minute bucket, and added to the
/// store behind the request path (``flush()``, from the server's write-behind loop), so that the console's rollout
/// page shows every process's answers, not one's.
///
/// A request costs one dictionary increment under a lock; a flush writes one row per counter touched since the last.
/// The counters waiting are bounded (`maximumPending`: apps × routes × outcomes × buckets rarely reach a thousand),
/// past which new counters are dropped and counted until a flush; a failed flush puts its counts back.
public final class GatewayCheckRecorder: Sendable {
    /// How long the store keeps buckets: the console's longest range and a day.
    public static let retention: TimeInterval = 8 * 86_400

    let store: any GatewayCheckStore
    let maximumPending: Int
    private let state = Mutex(State())
    private let flushes = AsyncSerialGate()

    private struct State {
        var pending: [Counter: Int64] = [:]
        var dropped = 0
    }

    private struct Counter: Hashable {
        var appId: String
        var route: String
        var outcome: String
        var passed: Bool
        var bucketStart: Int64
    }

    public init(store: any GatewayCheckStore, maximumPending: Int = 10_000) {
        self.store = store
        self.maximumPending = maximumPending
    }

    /// Counts one answer of `route` (its policy path, or `default`) in `appId` at `at`.
    public func note(appId: String, route: String, outcome: String, passed: Bool, at: Date) {
        let counter = Counter(appId: appId, route: route, outcome: outcome, passed: passed, bucketStart: GatewayCheckCount.bucketStart(of: at))
        state.withLock { state in
            if state.pending[counter] != nil || state.pending.count < maximumPending {
                state.pending[counter, default: 0] += 1
            } else {
                state.dropped += 1
            }
        }
    }

    /// Adds the counts noted since the last flush to the store in one call; a failure puts them back for the next.
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
            try await store.addGatewayChecks(batch.map { counter, count in
                GatewayCheckCount(
                    appId: counter.appId, route: counter.route, outcome: counter.outcome, passed: counter.passed,
                    bucketStart: counter.bucketStart, count: count
                )
            })
        } catch {
            state.withLock { state in state.pending.merge(batch, uniquingKeysWith: +) }
            throw error
        }
    }

    /// Deletes the buckets older than ``retention``; returns how many.
    public func purge(now: Date) async throws -> Int {
        try await store.purgeGatewayChecks(before: GatewayCheckCount.bucketStart(of: now.addingTimeInterval(-Self.retention)))
    }

    /// Drops the counts waiting for a flush (shutdown, once the last flush's budget is spent); returns how many
    /// answers they counted.
    public func dropPending() -> Int {
        state.withLock { state in
            defer { state.pending = [:] }
            return Int(state.pending.values.reduce(0, +))
        }
    }

    /// Counters waiting for a flush, and answers dropped because too many counters were waiting.
    public var backlog: (pending: Int, dropped: Int) {
        state.withLock { ($0.pending.count, $0.dropped) }
    }
}
