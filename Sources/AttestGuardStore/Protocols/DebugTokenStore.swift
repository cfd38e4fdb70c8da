public import Foundation

/// Where debug tokens are kept, shared by every server process on the store.
public protocol DebugTokenStore: Sendable {
    /// Stores a new token; `false` when its id or secret is taken (nothing stored).
    func createDebugToken(_ token: DebugTokenRecord) async throws -> Bool

    /// The app's tokens, newest first, at most `limit`.
    func debugTokens(appId: String, limit: Int) async throws -> [DebugTokenRecord]

    /// The token whose secret has this SHA-256, whatever its state.
    func debugToken(secretSha256: Data) async throws -> DebugTokenRecord?

    /// Revokes the app's token `id` at `at` (a revoked token stays revoked at its first instant); the token as it now
    /// is, or `nil` when the app has none with that id.
    func revokeDebugToken(appId: String, id: String, at: Date) async throws -> DebugTokenRecord?

    /// Adds uses counted in a process to their tokens (a token deleted since is skipped).
    func addDebugTokenUses(_ uses: [DebugTokenUse]) async throws
}
