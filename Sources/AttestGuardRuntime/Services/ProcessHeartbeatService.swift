import Foundation
package import Logging
import ServiceLifecycle

/// Writes this process's ``ProcessHeartbeat`` record every `interval` (a stopped process drops out of the list
/// when its record is older than ``ProcessHeartbeat/freshness``), and about hourly deletes records not refreshed
/// for a day. A failed write is logged and retried at the next beat: the list of processes is for operators, never
/// on the request path.
package struct ProcessHeartbeatService: Service {
    package let heartbeat: ProcessHeartbeat
    package let logger: Logger
    package var interval: Duration = .seconds(5)
    package var purgeEvery = 720

    package init(heartbeat: ProcessHeartbeat, logger: Logger, interval: Duration = .seconds(5), purgeEvery: Int = 720) {
        self.heartbeat = heartbeat
        self.logger = logger
        self.interval = interval
        self.purgeEvery = purgeEvery
    }

    package func run() async throws {
        var beats = 0
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Sleep first: the store may still be migrating, and GET /v1/admin/rules lists this process from memory.
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            do {
                try await heartbeat.beat()
                if failing { logger.info("process heartbeat written again") }
                failing = false
                if beats % purgeEvery == 0 {
                    _ = try await heartbeat.store.purgeServerProcesses(seenBefore: heartbeat.clock.now().addingTimeInterval(-86_400))
                }
            } catch {
                if !failing {
                    logger.warning("process heartbeat not written; GET /v1/admin/rules may not list this process", metadata: ["error": .string(String(describing: error))])
                }
                failing = true
            }
            beats += 1
        }
    }
}
