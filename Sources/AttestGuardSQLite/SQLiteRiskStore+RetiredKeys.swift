import AttestVocabulary
import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func retiredKeys(after cursor: RetiredKey.Cursor, limit: Int) async throws -> [RetiredKey] {
        try await query(
            """
            SELECT app_id, key_id, status, status_changed_at FROM app_keys
            WHERE status <> 'active' AND (status_changed_at, app_id, key_id) > (?1, ?2, ?3)
            ORDER BY status_changed_at, app_id, key_id LIMIT ?4
            """,
            [SQLiteValues.bind(cursor.changedAt), .text(cursor.appId), SQLiteValues.bind(cursor.keyId), .integer(max(limit, 0))]
        ).map { row in
            let read = SQLiteRowReader(row: row, table: "app_keys")
            return RetiredKey(
                appId: try read.text("app_id"), keyId: try read.blob("key_id"), status: try read.enumeration("status", as: KeyStatus.self),
                changedAt: try read.date("status_changed_at")
            )
        }
    }
}
