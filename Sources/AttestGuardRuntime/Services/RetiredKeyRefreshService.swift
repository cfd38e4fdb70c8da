package import AttestGuardEngine
package import Logging

/// Reads the keys retired through any process into the engine's ``RetiredKeyBook``: at start, and every
/// `sessionTokens.revocationRefreshSeconds` (``PeriodicStoreRead``), so that a revoked or superseded key's session
/// tokens stop passing on this process within that period. Runs only where session tokens are issued.
package enum RetiredKeyRefreshService {
    /// Reads once.
    package static func load(engine: Engine) async throws {
        try await engine.sessionTokens.retiredKeys.refresh(from: engine.store, now: engine.clock.now())
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
