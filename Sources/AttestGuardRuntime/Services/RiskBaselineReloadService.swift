package import AttestGuardEngine
package import AttestGuardStore
package import Logging

/// Reads each app's latest risk-metric baseline into the engine's ``RiskBaselineBook``: at start, and every
/// `apps.policyReloadSeconds` (``PeriodicStoreRead``), so that a baseline computed by any process sharing the store
/// reaches this one's verdicts within that period, without a store round trip on the verdict path.
package enum RiskBaselineReloadService {
    /// Reads the latest baselines once and puts them in force, logging each app whose baseline changed.
    package static func load(store: any RiskBaselineStore, into book: RiskBaselineBook, logger: Logger) async throws {
        let latest = try await store.latestRiskBaselines()
        for appId in book.replace(with: latest) {
            guard let baseline = latest.first(where: { $0.appId == appId }) else { continue }
            logger.info("risk-metric baseline in force", metadata: [
                "app": .string(appId), "day": .string(baseline.day), "keys": .stringConvertible(baseline.keyCount),
                "p99": .string(baseline.p99.map(String.init) ?? "-"),
            ])
        }
    }

    /// The reload that runs every `interval` beside the server.
    package static func service(store: any RiskBaselineStore, book: RiskBaselineBook, interval: Duration, logger: Logger) -> PeriodicStoreRead {
        PeriodicStoreRead(subject: "risk-metric baselines", kept: "the baselines in force stay", interval: interval, logger: logger) {
            try await load(store: store, into: book, logger: logger)
        }
    }
}
