public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    /// A key's last use, as the schedule reads it: the latest of its attestation, last assertion and last verdict.
    private static let lastUse = "max(k.attested_at, coalesce(k.last_assertion_at, 0), coalesce(k.last_used_at, 0))"

    public func recordKeyUse(_ uses: [KeyUse]) async throws -> Int {
        let latest = uses.latestPerKey
        guard !latest.isEmpty else { return 0 }
        return try await transaction { connection in
            var rejoined = 0
            for use in latest {
                let key: [SQLiteData] = [.text(use.appId), SQLiteValues.bind(use.keyId)]
                _ = try await connection.query(
                    """
                    UPDATE app_keys SET last_used_at = ?3
                    WHERE app_id = ?1 AND key_id = ?2 AND (last_used_at IS NULL OR last_used_at < ?3)
                    """,
                    key + [SQLiteValues.bind(use.at)]
                )
                rejoined += try await connection.query(
                    """
                    UPDATE receipts SET dormant_since = NULL
                    WHERE app_id = ?1 AND key_id = ?2 AND dormant_since IS NOT NULL
                    RETURNING key_id
                    """,
                    key
                ).count
            }
            return rejoined
        }
    }

    public func parkDormantReceipts(unusedSince cutoff: Date, at now: Date, limit: Int) async throws -> DormantParking {
        // One writer at a time: the key's last use read here cannot change before the update commits.
        let rows = try await query(
            """
            UPDATE receipts SET dormant_since = ?1
            WHERE rowid IN (
                SELECT r.rowid FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
                WHERE k.status = 'active' AND r.dormant_since IS NULL AND r.refreshed_at IS NOT NULL
                  AND r.next_refresh_at <= ?1 AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ?1)
                  AND \(Self.lastUse) < ?2
                ORDER BY r.next_refresh_at
                LIMIT ?3
            )
            RETURNING app_id
            """,
            [SQLiteValues.bind(now), SQLiteValues.bind(cutoff), .integer(limit)]
        )
        var parking = DormantParking()
        for row in rows {
            parking.parkedPerApp[try SQLiteRowReader(row: row, table: "receipts").text("app_id"), default: 0] += 1
        }
        return parking
    }

    public func rejoinDormantReceipts(usedSince cutoff: Date) async throws -> Int {
        try await query(
            """
            UPDATE receipts SET dormant_since = NULL
            WHERE dormant_since IS NOT NULL AND rowid IN (
                SELECT r.rowid FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
                WHERE r.dormant_since IS NOT NULL AND \(Self.lastUse) >= ?1
            )
            RETURNING key_id
            """,
            [SQLiteValues.bind(cutoff)]
        ).count
    }
}
