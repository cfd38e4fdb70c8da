public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func recordKeyUse(_ uses: [KeyUse]) async throws -> Int {
        guard !uses.isEmpty else { return 0 }
        let sorted = uses.latestPerKey
        let logger = self.logger
        return try await transaction { connection in
            // Keys in one order, so that two flushes lock the same rows in the same order.
            try await connection.query(
                """
                UPDATE app_keys k SET last_used_at = u.at
                FROM (SELECT * FROM unnest(\(ArrayParameter(sorted) { $0.pointee.appId })::text[], \(ByteaArrayParameter(sorted) { $0.pointee.keyId })::bytea[], \(ArrayParameter(sorted) { $0.pointee.at })::timestamptz[])
                      AS u(app_id, key_id, at) ORDER BY app_id, key_id) u
                WHERE k.app_id = u.app_id AND k.key_id = u.key_id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)
                """,
                logger: logger
            )
            // A statement of its own: its snapshot sees a parking that committed while the update above waited for
            // the parking's lock on the key, so no use is lost between the two.
            return try await connection.query(
                """
                UPDATE receipts r SET dormant_since = NULL
                FROM unnest(\(ArrayParameter(sorted) { $0.pointee.appId })::text[], \(ByteaArrayParameter(sorted) { $0.pointee.keyId })::bytea[]) AS u(app_id, key_id)
                WHERE r.app_id = u.app_id AND r.key_id = u.key_id AND r.dormant_since IS NOT NULL
                RETURNING r.key_id
                """,
                logger: logger
            ).collect().count
        }
    }

    public func parkDormantReceipts(unusedSince cutoff: Date, at now: Date, limit: Int) async throws -> DormantParking {
        // FOR UPDATE of the key as well as the receipt: a key whose use committed after this statement's snapshot is
        // read again at its latest version and, used now, left alone. SKIP LOCKED: a key being written is in use.
        let rows = try await rows(
            """
            WITH dormant AS (
                SELECT r.app_id, r.key_id
                FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
                WHERE k.status = 'active' AND r.dormant_since IS NULL AND r.refreshed_at IS NOT NULL
                  AND r.next_refresh_at <= \(now)
                  AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= \(now))
                  AND GREATEST(k.attested_at, k.last_assertion_at, k.last_used_at) < \(cutoff)
                ORDER BY r.next_refresh_at
                LIMIT \(Int32(clamping: limit))
                FOR UPDATE OF r, k SKIP LOCKED
            ), parked AS (
                UPDATE receipts r SET dormant_since = \(now)
                FROM dormant d WHERE r.app_id = d.app_id AND r.key_id = d.key_id
                RETURNING r.app_id
            )
            SELECT app_id, count(*) AS parked FROM parked GROUP BY app_id
            """
        )
        var parking = DormantParking()
        for row in rows {
            let read = PostgresRowReader(row, table: "receipts")
            parking.parkedPerApp[try read("app_id", as: String.self)] = Int(try read("parked", as: Int64.self))
        }
        return parking
    }

    public func rejoinDormantReceipts(usedSince cutoff: Date) async throws -> Int {
        try await rows(
            """
            UPDATE receipts r SET dormant_since = NULL
            FROM app_keys k
            WHERE r.dormant_since IS NOT NULL AND k.app_id = r.app_id AND k.key_id = r.key_id
              AND GREATEST(k.attested_at, k.last_assertion_at, k.last_used_at) >= \(cutoff)
            RETURNING r.key_id
            """
        ).count
    }
}
