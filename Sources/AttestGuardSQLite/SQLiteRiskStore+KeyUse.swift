public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    /// A key's last use, as the schedule reads it: the latest of its attestation, last assertion and last verdict.
    private static let lastUse = "max(k.attested_at, coalesce(k.last_assertion_at, 0), coalesce(k.last_used_at, 0))"

    public func recordKeyUse(_ uses: [KeyUse]) async throws -> Int {
        let latest = uses.latestPerKey
        guard !latest.isEmpty else { return 0 }
        let (lastUsed, awake) = Self.keyUseStatements(latest)
        return try await transaction { connection in
            try await lastUsed.run(on: connection)
            return try await awake.run(on: connection).count
        }
    }

    /// The key-use flush's two updates, each joined to a common table `used` of the uses (one per key: an
    /// `UPDATE ... FROM` applies one matching row of its choosing): two statements a hundred keys, not two a key.
    static func keyUseStatements(_ latest: [KeyUse]) -> (lastUsed: SQLiteRowStatements, awake: SQLiteRowStatements) {
        let rows: [[SQLiteData]] = latest.map { [.text($0.appId), SQLiteValues.bind($0.keyId), SQLiteValues.bind($0.at)] }
        let used = "WITH used (app_id, key_id, at) AS (VALUES"
        let lastUsed = SQLiteRowStatements(
            used, rows: rows, width: 3,
            """
            )
            UPDATE app_keys SET last_used_at = used.at FROM used
            WHERE app_keys.app_id = used.app_id AND app_keys.key_id = used.key_id
              AND (app_keys.last_used_at IS NULL OR app_keys.last_used_at < used.at)
            """,
            rowsPerStatement: SQLiteRowStatements.maximumJoinedRows
        )
        let awake = SQLiteRowStatements(
            used, rows: rows, width: 3,
            """
            )
            UPDATE receipts SET dormant_since = NULL FROM used
            WHERE receipts.app_id = used.app_id AND receipts.key_id = used.key_id AND receipts.dormant_since IS NOT NULL
            RETURNING receipts.key_id
            """,
            rowsPerStatement: SQLiteRowStatements.maximumJoinedRows
        )
        return (lastUsed, awake)
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
