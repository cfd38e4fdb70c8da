public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func createDebugToken(_ token: DebugTokenRecord) async throws -> Bool {
        try await !query(
            """
            INSERT INTO debug_tokens (id, app_id, name, secret_sha256, created_at, expires_at, created_by)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING RETURNING id
            """,
            [.text(token.id), .text(token.appId), .text(token.name), SQLiteValues.bind(token.secretSha256), SQLiteValues.bind(token.createdAt),
             SQLiteValues.bind(token.expiresAt), .text(token.createdBy)]
        ).isEmpty
    }

    public func debugTokens(appId: String, limit: Int) async throws -> [DebugTokenRecord] {
        try await query(
            "SELECT * FROM debug_tokens WHERE app_id = ?1 ORDER BY created_at DESC, id LIMIT ?2", [.text(appId), .integer(max(limit, 0))]
        ).map(DebugTokenRecord.init(sqlite:))
    }

    public func debugToken(secretSha256: Data) async throws -> DebugTokenRecord? {
        try await query("SELECT * FROM debug_tokens WHERE secret_sha256 = ?1", [SQLiteValues.bind(secretSha256)]).first.map(DebugTokenRecord.init(sqlite:))
    }

    public func revokeDebugToken(appId: String, id: String, at: Date) async throws -> DebugTokenRecord? {
        try await query(
            "UPDATE debug_tokens SET revoked_at = coalesce(revoked_at, ?3) WHERE app_id = ?1 AND id = ?2 RETURNING *",
            [.text(appId), .text(id), SQLiteValues.bind(at)]
        ).first.map(DebugTokenRecord.init(sqlite:))
    }

    public func addDebugTokenUses(_ uses: [DebugTokenUse]) async throws {
        guard !uses.isEmpty else { return }
        try await transaction { connection in
            for use in uses {
                _ = try await connection.query(
                    """
                    UPDATE debug_tokens SET uses = uses + ?2, last_used_at = max(coalesce(last_used_at, ?3), ?3) WHERE id = ?1
                    """,
                    [.text(use.id), .integer(Int(use.count)), SQLiteValues.bind(use.lastUsedAt)]
                )
            }
        }
    }
}

extension DebugTokenRecord {
    init(sqlite row: SQLiteRow) throws {
        let read = SQLiteRowReader(row: row, table: "debug_tokens")
        self.init(
            id: try read.text("id"), appId: try read.text("app_id"), name: try read.text("name"), secretSha256: try read.blob("secret_sha256"),
            createdAt: try read.date("created_at"), expiresAt: try read.date("expires_at"), revokedAt: try read.optionalDate("revoked_at"),
            createdBy: try read.text("created_by"), uses: try read.integer("uses"), lastUsedAt: try read.optionalDate("last_used_at")
        )
    }
}
