import Foundation

/// The keys that stopped being active (revoked, or superseded by a newer attestation), in the order they stopped: what
/// every process reads into its in-memory set, so that a retired key's session tokens stop passing without a store
/// round trip per request.
public protocol RetiredKeyStore: Sendable {
    /// The keys retired after `cursor` in (`changedAt`, app, key id) order, oldest first, at most `limit`; page on by
    /// passing the last one's ``RetiredKey/cursor``.
    func retiredKeys(after cursor: RetiredKey.Cursor, limit: Int) async throws -> [RetiredKey]
}
