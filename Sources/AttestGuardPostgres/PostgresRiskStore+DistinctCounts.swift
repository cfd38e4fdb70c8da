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

    public func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int {
        let (lower, upper) = DistinctSeriesSlice.bounds(seriesFirstBytes)
        // Bounds the planner can read as an index range: a slice ending at 255 has no upper bound.
        let lowerBound = ByteBuffer(bytes: lower)
        guard let upper else {
            return try await rows("DELETE FROM distinct_sightings WHERE series >= \(lowerBound) AND last_seen < \(before) RETURNING 1").count
        }
        let upperBound = ByteBuffer(bytes: upper)
        return try await rows(
            "DELETE FROM distinct_sightings WHERE series >= \(lowerBound) AND series < \(upperBound) AND last_seen < \(before) RETURNING 1"
        ).count
    }
}
