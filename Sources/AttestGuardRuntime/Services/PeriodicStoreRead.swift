package import Logging
import ServiceLifecycle

/// Reads something every process keeps from the shared store (app policy overrides, risk-metric baselines) every
/// `interval` (`apps.policyReloadSeconds`), so that a change written through any process is in force in this one
/// within that period. A failed read keeps what is in force, is logged once at warning until a read succeeds again
/// (then at info), and is retried at the next period.
package struct PeriodicStoreRead: Service {
    /// What is read, as the log lines name it (`app policy overrides`).
    package let subject: String
    /// What a failed read keeps, as its log line says it (`the policies in force stay`).
    package let kept: String
    package let interval: Duration
    package let logger: Logger
    package let read: @Sendable () async throws -> Void

    package init(subject: String, kept: String, interval: Duration, logger: Logger, read: @escaping @Sendable () async throws -> Void) {
        self.subject = subject
        self.kept = kept
        self.interval = interval
        self.logger = logger
        self.read = read
    }

    package func run() async throws {
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
