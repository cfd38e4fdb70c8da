public import Foundation
public import AttestGuardStore
/// A key with its current receipt, as the key routes show it.
public struct KeyDetails: Sendable, Hashable {
    public var key: AttestedKey
    public var receipt: KeyReceipt?
}

/// Reads and revokes registered keys.
public struct KeyService: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock

    /// Told of every revocation (``ScoringFactsCache/keyRevoked()``).
    let factsCache: ScoringFactsCache
    /// Told of every revocation, so that the key's session tokens stop passing in this process at once.
    let retiredKeys: RetiredKeyBook
    /// Told of every key this service revokes (`key.revoked`).
    let webhooks: WebhookPublisher?

    public init(
        store: any RiskStore, apps: AppCatalog, clock: any EngineClock, factsCache: ScoringFactsCache = ScoringFactsCache(limits: .disabled),
        retiredKeys: RetiredKeyBook = RetiredKeyBook(horizon: 0), webhooks: WebhookPublisher? = nil
    ) {
        self.webhooks = webhooks
        self.factsCache = factsCache
        self.retiredKeys = retiredKeys
        self.store = store
        self.apps = apps
        self.clock = clock
    }

    public func details(appId: String, keyId: Data) async throws -> KeyDetails {
        _ = try apps.policy(for: appId)
        let key = try await withStore { try await store.key(appId: appId, keyId: keyId) }
        guard let key else { throw Self.notFound(appId) }
        let receipt = try await withStore { try await store.receipt(appId: appId, keyId: keyId) }
        return KeyDetails(key: AttestedKey(key), receipt: receipt.map(KeyReceipt.init))
    }

    /// Revokes the key for good (its receipts are no longer refreshed); revoking twice is harmless. `actor` (an API
    /// key's name, `rule:<id>`, `review:<item>`) is who the `key.revoked` event names; a key revoked already gets none.
    public func revoke(appId: String, keyId: Data, by actor: String) async throws -> KeyDetails {
        _ = try apps.policy(for: appId)
        let before = webhooks == nil ? nil : try await withStore { try await store.key(appId: appId, keyId: keyId) }
        let key = try await withStore {
            // Told whatever the outcome: a write that timed out may still have committed.
            defer { factsCache.keyRevoked() }
            return try await store.revokeKey(appId: appId, keyId: keyId, at: clock.now())
        }
        guard let key else { throw Self.notFound(appId) }
        retiredKeys.note([RetiredKey(appId: appId, keyId: keyId, status: key.status, changedAt: key.statusChangedAt ?? clock.now())])
        if let webhooks, let before, before.status != .revoked {
            await webhooks.publish(.keyRevoked(appId: appId, keyId: keyId.base64EncodedString(), by: actor, at: clock.now()))
        }
        let receipt = try await withStore { try await store.receipt(appId: appId, keyId: keyId) }
        return KeyDetails(key: AttestedKey(key), receipt: receipt.map(KeyReceipt.init))
    }

    private static func notFound(_ appId: String) -> EngineError {
        EngineError(.notFound, code: .keyNotFound, "no key with this id is registered for \(appId)")
    }
}
