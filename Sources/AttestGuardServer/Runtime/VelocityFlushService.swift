import AttestGuard
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Writes the engine's velocity increments to the store every `interval` (so other processes see them within
/// about that long), purges expired buckets every `purgeEvery`, and flushes once more on shutdown. Gauges:
/// `attestguard_velocity_pending_buckets` (not yet written) and `attestguard_velocity_dropped` (increments
/// dropped since start because the store stayed down while the map was full).
struct VelocityFlushService: Service {
    let engine: AttestGuardEngine
    let logger: Logger
    var interval: Duration = .milliseconds(250)
    var purgeEvery = 2_400

    func run() async throws {
        var rounds = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            await flush()
            rounds += 1
            if rounds % purgeEvery == 0 {
                do {
                    _ = try await engine.velocity.purge(now: engine.clock.now())
                } catch {
                    logger.warning("velocity purge failed", metadata: ["error": .string(String(describing: error))])
                }
            }
        }
        await flush()
    }

    private func flush() async {
        defer {
            let backlog = engine.velocity.backlog
            Gauge(label: "attestguard_velocity_pending_buckets").record(backlog.pending)
            Gauge(label: "attestguard_velocity_dropped").record(backlog.dropped)
        }
        do {
            try await engine.velocity.flush()
        } catch {
            let backlog = engine.velocity.backlog
            logger.warning("velocity flush failed; increments kept for the next flush", metadata: [
                "error": .string(String(describing: error)), "pending": .stringConvertible(backlog.pending), "dropped": .stringConvertible(backlog.dropped),
            ])
        }
    }
}
