public import AttestGuardEngine
import Foundation
public import ServiceLifecycle

/// Runs the receipt scheduler continuously beside the server: newly attested keys get their first redemption
/// within the configured delay, and every receipt is redeemed again when due. Several server processes on one
/// PostgreSQL share the work through leases.
public struct ReceiptRefreshService: Service {
    package let scheduler: ReceiptRefreshScheduler

    public init(scheduler: ReceiptRefreshScheduler) {
        self.scheduler = scheduler
    }

    public func run() async throws {
        // Wait one poll interval first: at start-up the schema may still be migrating.
        _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: scheduler.settings.pollInterval) }
        guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return }
        await cancelWhenGracefulShutdown {
            try? await scheduler.runContinuously()
        }
    }
}
