import AttestGuard
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Writes what the request path queued, every `interval`: the velocity increments (so other processes see them
/// within about 1.5 intervals) and the decision log entries. Both go out in small chunks spread over half the
/// interval, side by side, so that the database never spends tens of milliseconds of a core on one statement while
/// requests wait behind it; a longer interval merges more of a busy key's events into one bucket write. Every
/// `compactEvery` rounds (a minute) it rolls aged velocity buckets up into coarser ones and deletes expired ones,
/// every `purgeEvery` rounds it drops expired decision log days, and it flushes once more, at once, on shutdown.
/// Counter `attestguard_velocity_rolled_up_buckets`. Gauges: `attestguard_velocity_pending_buckets`,
/// `attestguard_velocity_dropped`, `attestguard_decision_log_queued`, `attestguard_decision_log_dropped`
/// (dropped: since start, because the store stayed down while the queue was full).
struct WriteBehindService: Service {
    let engine: AttestGuardEngine
    let logger: Logger
    var interval: Duration = .seconds(1)
    var compactEvery = 60
    var purgeEvery = 600

    func run() async throws {
        var rounds = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            await flush(spreadingOver: Task.isShuttingDownGracefully ? .zero : interval / 2)
            rounds += 1
            if rounds % compactEvery == 0 { await compactVelocity() }
            if rounds % purgeEvery == 0 { await purgeDecisionLog() }
        }
        await flush(spreadingOver: .zero)
    }

    private func flush(spreadingOver spread: Duration) async {
        defer { recordBacklog() }
        async let velocity: Void = flushVelocity(spreadingOver: spread)
        async let decisions: Void = flushDecisionLog(spreadingOver: spread)
        _ = await (velocity, decisions)
    }

    private func flushVelocity(spreadingOver spread: Duration) async {
        do {
            try await engine.velocity.flush(spreadingOver: spread)
        } catch {
            logger.warning("velocity flush failed; increments kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushDecisionLog(spreadingOver spread: Duration) async {
        do {
            try await engine.scorer.decisionLog.flush(spreadingOver: spread)
        } catch {
            logger.warning("decision log write failed; entries kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func compactVelocity() async {
        do {
            let result = try await engine.velocity.compact(now: engine.clock.now())
            Counter(label: "attestguard_velocity_rolled_up_buckets").increment(by: result.movedBuckets)
        } catch {
            logger.warning("velocity rollup failed; aged buckets stay where they are until the next round", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeDecisionLog() async {
        do {
            _ = try await engine.scorer.decisionLog.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of decision log days failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func recordBacklog() {
        let velocity = engine.velocity.backlog
        Gauge(label: "attestguard_velocity_pending_buckets").record(velocity.pending)
        Gauge(label: "attestguard_velocity_dropped").record(velocity.dropped)
        let log = engine.scorer.decisionLog.backlog
        Gauge(label: "attestguard_decision_log_queued").record(log.queued)
        Gauge(label: "attestguard_decision_log_dropped").record(log.dropped)
    }
}
