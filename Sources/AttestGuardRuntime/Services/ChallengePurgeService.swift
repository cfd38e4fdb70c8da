package import AttestGuardEngine
package import Foundation
package import Logging
package import AttestGuardStore
import ServiceLifecycle

/// Deletes challenges a day after they expire, every ten minutes. Consumed challenges stay until then, so a
/// replayed assertion is still recognised as `assertion_already_accepted` for a day. Also deletes the team-wide
/// DeviceCheck rows stored before bits were per app, ``DeviceCheckScope/legacyRetentionDays`` after they were
/// observed.
package struct ChallengePurgeService: Service {
    package let store: any RiskStore
    package let clock: any EngineClock
    package let logger: Logger
    package var interval: Duration = .seconds(600)
    package var retention: TimeInterval = 86_400
    /// Told when stored DeviceCheck rows were deleted, so that verdicts stop using them at once.
    package let factsCache: ScoringFactsCache?

    package init(
        store: any RiskStore, clock: any EngineClock, logger: Logger, interval: Duration = .seconds(600), retention: TimeInterval = 86_400,
        factsCache: ScoringFactsCache? = nil
    ) {
        self.factsCache = factsCache
        self.store = store
        self.clock = clock
        self.logger = logger
        self.interval = interval
        self.retention = retention
    }

    package func run() async throws {
        // Sleep first: at start-up the schema may still be migrating.
        while await sleepUnlessShuttingDown() {
            do {
                let purged = try await store.purgeChallenges(expiredBefore: clock.now().addingTimeInterval(-retention))
                if purged > 0 { logger.debug("purged expired challenges", metadata: ["count": .stringConvertible(purged)]) }
                let legacyCutoff = clock.now().addingTimeInterval(-Double(DeviceCheckScope.legacyRetentionDays) * 86_400)
                let legacy = try await store.purgeLegacyDeviceCheckBits(observedBefore: legacyCutoff)
                if legacy > 0 { factsCache?.deviceCheckBitsPurged() }
                if legacy > 0 { logger.info("purged team-wide DeviceCheck rows stored before bits were per app", metadata: ["count": .stringConvertible(legacy)]) }
            } catch {
                logger.warning("challenge purge failed", metadata: ["error": .string(String(describing: error))])
            }
        }
    }

    /// Sleeps one interval; false once the service should stop (cancelled or shutting down gracefully).
    private func sleepUnlessShuttingDown() async -> Bool {
        _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
        return !Task.isCancelled && !Task.isShuttingDownGracefully
    }
}
