import Logging
import ServiceLifecycle

/// Reads something every process keeps from the shared store (app policy overrides, risk-metric baselines) every
/// `interval` (`apps.policyReloadSeconds`), so that a change written through any process is in force in this one
/// within that period. A failed read keeps what is in force, is logged once at warning until a read succeeds again
/// (then at info), and is retried at the next period.
struct PeriodicStoreRead: Service {
    /// What is read, as the log lines name it (`app policy overrides`).
    let subject: String
    /// What a failed read keeps, as its log line says it (`the policies in force stay`).
    let kept: String
    let interval: Duration
    let logger: Logger
    let read: @Sendable () async throws -> Void

    func run() async throws {
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            do {
                try await read()
                if failing { logger.info("\(subject) read again") }
                failing = false
            } catch {
                if !failing {
                    logger.warning("\(subject) not read; \(kept)", metadata: ["error": .string(String(describing: error))])
                }
                failing = true
            }
        }
    }
}
