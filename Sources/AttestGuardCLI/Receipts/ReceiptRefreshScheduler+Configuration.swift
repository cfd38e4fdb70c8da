import AttestGuardEngine
import AttestGuardServer
import Logging

extension ReceiptRefreshScheduler {
    /// The scheduler `serve` (continuous refresh) and `receipts refresh` (the batch) run: the configuration's receipt
    /// verifier and refresh settings, and Apple's receipt client.
    init(store: OpenedStore, apple: AppleClients, configuration: ServerConfiguration, clock: any EngineClock, logger: Logger) {
        self.init(
            store: store.store,
            redeemer: apple.receipts,
            verifier: configuration.engine.receiptVerifier,
            settings: configuration.engine.receiptRefresh,
            clock: clock,
            logger: logger
        )
    }
}
