import SQLiteNIO

extension SQLiteRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement]) async throws {
        guard !increments.isEmpty else { return }
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
        }
    }

    public func velocitySums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64] {
        var totals: [Int64] = []
        for sum in sums {
            let rows = try await query(
                """
                SELECT coalesce(sum(count), 0) AS total FROM velocity_counters
                WHERE app_id = ?1 AND subject = ?2 AND event = ?3 AND granularity = ?4 AND bucket >= ?5
                """,
                [.text(appId), .text(sum.subject), .text(sum.event), .integer(sum.granularity), .integer(Int(sum.since))]
            )
            totals.append(Int64(rows.first?.column("total")?.integer ?? 0))
        }
        return totals
    }

    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await query(
            "DELETE FROM velocity_counters WHERE granularity = ?1 AND bucket < ?2 RETURNING 1",
            [.integer(granularity), .integer(Int(before))]
        ).count
    }
}
