public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        guard !increments.isEmpty || flush != nil else { return }
        _ = try await execute(AddVelocityStatement(rows: VelocityFlushRows(increments).rows, flush: flush))
    }

    /// The velocity part of the scoring facts statement, which reads sums and the flush sequence in one snapshot.
    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        guard !sums.isEmpty else { return VelocityReading(totals: [], flushedSequence: 0) }
        return try await scoringFacts(ScoringFactsQuery(appId: appId, keyId: nil, velocity: sums, velocityWriter: writer)).velocity
    }

    public func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int {
        // One statement, so the move commits whole. SKIP LOCKED: buckets another process is moving (or a late flush
        // is adding to) are left for the next round. The coarse buckets are added in key order, like a flush.
        let fine = Int32(clamping: granularity), size = Int64(coarser)
        let moved = try await rows(
            """
            WITH moved AS (
                DELETE FROM velocity_buckets WHERE (series, bucket, granularity) IN (
                    SELECT series, bucket, granularity FROM velocity_buckets WHERE granularity = \(fine) AND bucket < \(before)
                    LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
                )
                RETURNING series, bucket, count
            ), coarse AS (
                INSERT INTO velocity_buckets (series, bucket, granularity, count)
                SELECT series, bucket - ((bucket % \(size)) + \(size)) % \(size), \(Int32(clamping: coarser)), sum(count)
                FROM moved GROUP BY 1, 2 ORDER BY 1, 2
                ON CONFLICT (series, bucket, granularity) DO UPDATE SET count = velocity_buckets.count + excluded.count
            )
            SELECT count(*) AS moved FROM moved
            """
        )
        return Int(try moved.first?.decode(Int64.self) ?? 0)
    }

    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await rows(
            "DELETE FROM velocity_buckets WHERE granularity = \(Int32(clamping: granularity)) AND bucket < \(before) RETURNING 1"
        ).count
    }

    public func purgeVelocityFlushes(before: Date) async throws -> Int {
        try await rows("DELETE FROM velocity_flushes WHERE flushed_at < \(before) RETURNING 1").count
    }
}
