import AttestVocabulary
import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    /// Read from the primary: a replica's lag would let a revoked key's tokens pass for longer than the refresh period.
    public func retiredKeys(after cursor: RetiredKey.Cursor, limit: Int) async throws -> [RetiredKey] {
        try await rows(
            """
            SELECT app_id, key_id, status, status_changed_at FROM app_keys
            WHERE status <> 'active' AND (status_changed_at, app_id, key_id) > (\(cursor.changedAt), \(cursor.appId), \(cursor.keyId))
            ORDER BY status_changed_at, app_id, key_id LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map { row in
            let read = PostgresRowReader(row, table: "app_keys")
            return RetiredKey(
                appId: try read("app_id"), keyId: try read("key_id"), status: try read.enumeration("status", as: KeyStatus.self),
                changedAt: try read("status_changed_at")
            )
        }
    }
}
