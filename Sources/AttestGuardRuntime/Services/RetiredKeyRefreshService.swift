package import AttestGuardEngine
package import Logging
import AttestVocabulary
import Metrics

/// Reads the keys retired through any process into the engine's ``RetiredKeyBook``: at start, and every
/// `sessionTokens.revocationRefreshSeconds` (``PeriodicStoreRead``), so that a revoked or superseded key's session
/// tokens stop passing on this process within that period. Runs only where session tokens are issued.
package enum RetiredKeyRefreshService {
    /// Reads once, and says so in `attestguard_retired_keys_held` and `attestguard_retired_keys_last_read_timestamp_seconds`
    /// (an alert on the age of the last read sees a store this process cannot read before token routes refuse).
    package static func load(engine: Engine) async throws {
        let book = engine.sessionTokens.retiredKeys
        guard book.horizon > 0 else { return }
        let now = engine.clock.now()
        try await book.refresh(from: engine.store, now: now)
        Gauge(label: MetricFamily.retiredKeysHeld.name).record(book.count)
        Gauge(label: MetricFamily.retiredKeysLastReadTimestamp.name).record(now.timeIntervalSince1970)
    }

    /// The refresh that runs every `sessionTokens.revocationRefreshSeconds` beside the server; `nil` when no app
    /// issues session tokens.
    package static func service(engine: Engine, logger: Logger) -> PeriodicStoreRead? {
        guard engine.sessionTokens.retiredKeys.horizon > 0 else { return nil }
        return PeriodicStoreRead(
            subject: "retired keys", kept: "the retired keys held stay, and token routes answer 503 once they are older than \(engine.sessionTokens.retiredKeys.staleAfter)",
            interval: engine.settings.revocationRefresh, logger: logger
        ) {
            try await load(engine: engine)
        }
    }
}
