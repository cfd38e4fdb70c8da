import AttestGuardEngine
import AttestGuardRuntime
import Logging

extension ReceiptRefreshScheduler {
    /// The scheduler `serve` (continuous refresh) and `receipts refresh` (the batch) run: the configuration's receipt
    /// verifier and refresh settings, Apple's receipt client, and the daily risk-metric baselines of the configured apps;
    /// in `serve`, the engine's facts cache, told of every receipt the scheduler settles.
    init(
        store: OpenedStore, apple: AppleClients, configuration: ServerConfiguration, clock: any EngineClock, logger: Logger,
        factsCache: ScoringFactsCache? = nil
    ) {
        self.init(
            store: store.store,
            redeemer: apple.receipts,
            verifier: configuration.engine.receiptVerifier,
            settings: configuration.engine.receiptRefresh,
            clock: clock,
            logger: logger,
            factsCache: factsCache
        )
        baselines = RiskBaselineJob(
            store: store.store, appIds: configuration.apps.map(\.appId), clock: clock, owner: owner, logger: logger
        )
    }
}
