import PostgresNIO

extension PostgresRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement]) async throws {
        guard !increments.isEmpty else { return }
        // Sorted, so that concurrent flushes lock rows in one order; one statement per flush.
        let sorted = increments.sorted { $0.key < $1.key }
        _ = try await rows(
            """
            INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count)
            SELECT * FROM unnest(\(sorted.map(\.key.appId))::text[], \(sorted.map(\.key.subject))::text[], \(sorted.map(\.key.event))::text[],
                                 \(sorted.map { Int32(clamping: $0.key.granularity) })::int4[], \(sorted.map(\.key.bucket))::int8[],
                                 \(sorted.map(\.count))::int8[])
            ON CONFLICT (app_id, subject, event, granularity, bucket) DO UPDATE SET count = velocity_counters.count + excluded.count
            """
        )
    }

    public func velocitySums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64] {
        guard !sums.isEmpty else { return [] }
        let rows = try await rows(
            """
            SELECT q.i, coalesce(sum(v.count), 0)::int8 AS total
            FROM unnest(\(sums.map(\.subject))::text[], \(sums.map(\.event))::text[], \(sums.map { Int32(clamping: $0.granularity) })::int4[],
                        \(sums.map(\.since))::int8[]) WITH ORDINALITY AS q(subject, event, granularity, since, i)
            LEFT JOIN velocity_counters v
              ON v.app_id = \(appId) AND v.subject = q.subject AND v.event = q.event AND v.granularity = q.granularity AND v.bucket >= q.since
            GROUP BY q.i ORDER BY q.i
            """
        )
        return try rows.map { try $0.decode((Int64, Int64).self).1 }
    }

    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await rows(
            "DELETE FROM velocity_counters WHERE granularity = \(Int32(clamping: granularity)) AND bucket < \(before) RETURNING 1"
        ).count
    }
}
