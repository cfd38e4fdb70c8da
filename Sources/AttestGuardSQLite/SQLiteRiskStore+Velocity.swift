public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        guard !increments.isEmpty || flush != nil else { return }
        try await transaction { connection in
            for increment in increments {
                let key = increment.key
                _ = try await connection.query(
                    """
                    INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    ON CONFLICT (app_id, subject, event, granularity, bucket) DO UPDATE SET count = velocity_counters.count + excluded.count
                    """,
                    [.text(key.appId), .text(key.subject), .text(key.event), .integer(key.granularity), .integer(Int(key.bucket)), .integer(Int(increment.count))]
                )
            }
            if let flush {
                _ = try await connection.query(
                    """
                    INSERT INTO velocity_flushes (writer, sequence, flushed_at) VALUES (?1, ?2, ?3)
                    ON CONFLICT (writer) DO UPDATE SET sequence = max(velocity_flushes.sequence, excluded.sequence), flushed_at = excluded.flushed_at
                    """,
                    [.text(flush.writer), .integer(Int(flush.sequence)), SQLiteValues.bind(flush.at)]
                )
            }
        }
    }

    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        // One transaction, so the sums and the flush record come from one snapshot.
        try await transaction { connection in
            var totals: [Int64] = []
            for sum in sums {
                let rows = try await connection.query(
                    """
                    SELECT coalesce(sum(count), 0) AS total FROM velocity_counters
                    WHERE app_id = ?1 AND subject = ?2 AND event = ?3 AND bucket >= ?4
                    """,
                    [.text(appId), .text(sum.subject), .text(sum.event), .integer(Int(sum.since))]
                )
                totals.append(Int64(rows.first?.column("total")?.integer ?? 0))
            }
            var flushed: Int64 = 0
            if let writer {
                let rows = try await connection.query("SELECT sequence FROM velocity_flushes WHERE writer = ?1", [.text(writer)])
                flushed = Int64(rows.first?.column("sequence")?.integer ?? 0)
            }
            return VelocityReading(totals: totals, flushedSequence: flushed)
        }
    }

    public func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int {
        // The same rows (the first `limit` by rowid) are added to their coarse buckets and deleted, in one transaction.
        let bindings: [SQLiteData] = [.integer(granularity), .integer(coarser), .integer(Int(before)), .integer(limit)]
        return try await transaction { connection in
            _ = try await connection.query(
                """
                INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count)
                SELECT app_id, subject, event, ?2, bucket - ((bucket % ?2) + ?2) % ?2, sum(count)
                FROM (SELECT * FROM velocity_counters WHERE granularity = ?1 AND bucket < ?3 ORDER BY rowid LIMIT ?4)
                WHERE true GROUP BY app_id, subject, event, bucket - ((bucket % ?2) + ?2) % ?2
                ON CONFLICT (app_id, subject, event, granularity, bucket) DO UPDATE SET count = velocity_counters.count + excluded.count
                """,
                bindings
            )
            return try await connection.query(
                """
                DELETE FROM velocity_counters WHERE rowid IN (
                    SELECT rowid FROM velocity_counters WHERE granularity = ?1 AND bucket < ?3 ORDER BY rowid LIMIT ?4
                ) RETURNING 1
                """,
                bindings
            ).count
        }
    }

    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await query(
            "DELETE FROM velocity_counters WHERE granularity = ?1 AND bucket < ?2 RETURNING 1",
            [.integer(granularity), .integer(Int(before))]
        ).count
    }

    public func purgeVelocityFlushes(before: Date) async throws -> Int {
        try await query("DELETE FROM velocity_flushes WHERE flushed_at < ?1 RETURNING 1", [SQLiteValues.bind(before)]).count
    }
}
