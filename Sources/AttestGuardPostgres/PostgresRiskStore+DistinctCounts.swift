import NIOCore
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func addDistinctSightings(_ sightings: [DistinctSighting]) async throws {
        guard !sightings.isEmpty else { return }
        _ = try await execute(AddDistinctSightingsStatement(sightings))
    }

    /// The distinct part of the scoring facts statement: a verdict reads its counts with its other facts.
    public func distinctCounts(_ reads: [DistinctCountRead]) async throws -> [Int64] {
        guard !reads.isEmpty else { return [] }
        var query = ScoringFactsQuery(appId: "", keyId: nil)
        query.distinct = reads
        return try await scoringFacts(query).distinct
    }

    /// Deletes in statements of at most ``purgeBatch`` rows, each its own short transaction, until a statement finds
    /// fewer: a slice that expired all at once never holds its rows' locks, or a database core, for long.
    public func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int {
        let (lower, upper) = DistinctSeriesSlice.bounds(seriesFirstBytes)
        let lowerBound = ByteBuffer(bytes: lower), limit = Int64(Self.purgeBatch)
        var deleted = 0
        while true {
            try Task.checkCancellation()
            // Bounds the planner reads as an index range: a slice ending at 255 has no upper bound.
            let rows = if let upper {
                try await rows(
                    """
                    WITH gone AS (
                        DELETE FROM distinct_sightings WHERE ctid IN (
                            SELECT ctid FROM distinct_sightings
                            WHERE series >= \(lowerBound) AND series < \(ByteBuffer(bytes: upper)) AND last_seen < \(before) LIMIT \(limit)
                        ) RETURNING 1
                    ) SELECT count(*) FROM gone
                    """
                )
            } else {
                try await rows(
                    """
                    WITH gone AS (
                        DELETE FROM distinct_sightings WHERE ctid IN (
                            SELECT ctid FROM distinct_sightings WHERE series >= \(lowerBound) AND last_seen < \(before) LIMIT \(limit)
                        ) RETURNING 1
                    ) SELECT count(*) FROM gone
                    """
                )
            }
            let count = Int(try rows.first?.decode(Int64.self) ?? 0)
            deleted += count
            if count < Self.purgeBatch { return deleted }
        }
    }

    /// The most sightings one statement of a purge deletes.
    static let purgeBatch = 5_000
}
