import Logging
import ServiceLifecycle

/// Logs at info the moment `serve` begins to shut down (SIGTERM or SIGINT): the listener closes, requests in progress
/// finish, the write-behind flushes once more. `attestguard stopped` follows when all of it is done, so that an SRE
/// reading the log sees where a slow shutdown spent its time.
struct ShutdownAnnouncement: Service {
    let logger: Logger

    func run() async throws {
        try await gracefulShutdown()
        logger.info("draining: closing the listener, finishing requests in progress, flushing the write-behind queues")
    }
}
