import AttestGuardEngine
import AttestGuardStorage
import Logging
import ServiceLifecycle

/// Reads each app's latest risk-metric baseline into the engine's ``RiskBaselineBook`` every `interval`
/// (`apps.policyReloadSeconds`), so that a baseline computed by any process sharing the store reaches this one's
/// verdicts within that period, without a store round trip on the verdict path. A failed read keeps the baselines
/// in force, is logged once until a read succeeds again, and is retried at the next period.
struct RiskBaselineReloadService: Service {
    let store: any RiskBaselineStore
    let book: RiskBaselineBook
    let interval: Duration
    let logger: Logger

    /// Reads the latest baselines once and puts them in force, logging each app whose baseline changed.
    static func load(store: any RiskBaselineStore, into book: RiskBaselineBook, logger: Logger) async throws {
        let latest = try await store.latestRiskBaselines()
        for appId in book.replace(with: latest) {
            guard let baseline = latest.first(where: { $0.appId == appId }) else { continue }
            logger.info("risk-metric baseline in force", metadata: [
                "app": .string(appId), "day": .string(baseline.day), "keys": .stringConvertible(baseline.keyCount),
                "p99": .string(baseline.p99.map(String.init) ?? "-"),
            ])
        }
    }

    func run() async throws {
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
            do {
                try await Self.load(store: store, into: book, logger: logger)
                if failing { logger.info("risk-metric baselines read again") }
                failing = false
            } catch {
                if !failing {
                    logger.warning("risk-metric baselines not read; the baselines in force stay", metadata: [
                        "error": .string(String(describing: error)),
                    ])
                }
                failing = true
            }
        }
    }
}
