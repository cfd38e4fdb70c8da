public import Foundation
import PostgresNIO

extension PostgresRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        guard !increments.isEmpty || flush != nil else { return }
        _ = try await execute(AddVelocityStatement(increments: increments, flush: flush))
    }

    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        guard !sums.isEmpty else { return VelocityReading(totals: [], flushedSequence: 0) }
        let rows = try await execute(VelocitySumsStatement(appId: appId, sums: sums, writer: writer))
        guard rows.count == sums.count else { throw StoreError(.queryFailed, "velocitySums returned \(rows.count) rows for \(sums.count) sums") }
        return VelocityReading(totals: rows.map(\.total), flushedSequence: rows.first?.flushed ?? 0)
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
