public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func createDebugToken(_ token: DebugTokenRecord) async throws -> Bool {
        try await !rows(
            """
            INSERT INTO debug_tokens (id, app_id, name, secret_sha256, created_at, expires_at, created_by)
            VALUES (\(token.id), \(token.appId), \(token.name), \(token.secretSha256), \(token.createdAt), \(token.expiresAt), \(token.createdBy))
            ON CONFLICT DO NOTHING RETURNING id
            """
        ).isEmpty
    }

    public func debugTokens(appId: String, limit: Int) async throws -> [DebugTokenRecord] {
        try await rows(
            "SELECT * FROM debug_tokens WHERE app_id = \(appId) ORDER BY created_at DESC, id LIMIT \(Int32(clamping: max(limit, 0)))"
        ).map(DebugTokenRecord.init(postgres:))
    }

    public func debugToken(secretSha256: Data) async throws -> DebugTokenRecord? {
        try await rows("SELECT * FROM debug_tokens WHERE secret_sha256 = \(secretSha256)").first.map(DebugTokenRecord.init(postgres:))
    }

    public func revokeDebugToken(appId: String, id: String, at: Date) async throws -> DebugTokenRecord? {
        try await rows(
            """
            UPDATE debug_tokens SET revoked_at = coalesce(revoked_at, \(at)) WHERE app_id = \(appId) AND id = \(id) RETURNING *
            """
        ).first.map(DebugTokenRecord.init(postgres:))
    }

    public func addDebugTokenUses(_ uses: [DebugTokenUse]) async throws {
        guard !uses.isEmpty else { return }
        // In id order, so that two processes adding at once lock the rows in the same order.
        let sorted = uses.sorted { $0.id < $1.id }
        _ = try await rows(
            """
            UPDATE debug_tokens AS stored SET uses = stored.uses + added.count,
                last_used_at = greatest(coalesce(stored.last_used_at, added.at), added.at)
            FROM unnest(\(sorted.map(\.id))::text[], \(sorted.map(\.count))::int8[], \(sorted.map(\.lastUsedAt))::timestamptz[]) AS added (id, count, at)
            WHERE stored.id = added.id
            """
        )
    }
}

extension DebugTokenRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "debug_tokens")
        self.init(
            id: try read("id"), appId: try read("app_id"), name: try read("name"), secretSha256: try read("secret_sha256"),
            createdAt: try read("created_at"), expiresAt: try read("expires_at"), revokedAt: try read("revoked_at"),
            createdBy: try read("created_by"), uses: try read("uses"), lastUsedAt: try read("last_used_at")
        )
    }
}
