import Logging
import ServiceLifecycle

/// Reads the stored app policy overrides every `interval` (`apps.policyReloadSeconds`), so that a change made through
/// any process sharing the store is in force in this one within that period. A failed read keeps the policies in
/// force, is logged once until a read succeeds again, and is retried at the next period.
struct AppPolicyOverrideService: Service {
    let overrides: AppPolicyOverrides
    let interval: Duration

    func run() async throws {
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            do {
                try await overrides.refresh()
                if failing { overrides.logger.info("app policy overrides read again") }
                failing = false
            } catch {
                if !failing {
                    overrides.logger.warning("app policy overrides not read; the policies in force stay", metadata: [
                        "error": .string(String(describing: error)),
                    ])
                }
                failing = true
            }
        }
    }
}
