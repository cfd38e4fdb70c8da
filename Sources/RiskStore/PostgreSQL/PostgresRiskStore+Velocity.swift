public import Foundation
import PostgresNIO

extension PostgresRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        guard !increments.isEmpty || flush != nil else { return }
        _ = try await execute(AddVelocityStatement(increments: increments, flush: flush))
    }

    /// The velocity part of the scoring facts statement, which reads sums and the flush sequence in one snapshot.
    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        guard !sums.isEmpty else { return VelocityReading(totals: [], flushedSequence: 0) }
        return try await scoringFacts(ScoringFactsQuery(appId: appId, keyId: nil, velocity: sums, velocityWriter: writer)).velocity
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
