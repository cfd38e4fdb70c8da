public import AttestGuardStore
import AttestVocabulary
import NIOCore
import SQLiteNIO

extension SQLiteRiskStore {
    public func addDistinctSightings(_ sightings: [DistinctSighting]) async throws {
        guard !sightings.isEmpty else { return }
        let statements = SQLiteRowStatements(
            "INSERT INTO distinct_sightings (series, member, last_seen) VALUES",
            rows: sightings.map { [.blob(ByteBuffer(bytes: $0.series)), .blob(ByteBuffer(bytes: $0.member)), .integer(Int($0.lastSeen))] },
            width: 3,
            """
            ON CONFLICT (series, member) DO UPDATE SET last_seen = excluded.last_seen
            WHERE distinct_sightings.last_seen < excluded.last_seen
            """
        )
        _ = try await transaction { try await statements.run(on: $0) }
    }

    public func distinctCounts(_ reads: [DistinctCountRead]) async throws -> [Int64] {
        guard !reads.isEmpty else { return [] }
        // One transaction, so every count comes from one snapshot.
        return try await transaction { connection in
            var counts: [Int64] = []
            for read in reads {
                let excluded = read.excluding.indices.map { "?\($0 + 4)" }.joined(separator: ", ")
                let rows = try await connection.query(
                    """
                    SELECT count(*) AS n FROM (
                        SELECT 1 FROM distinct_sightings WHERE series = ?1 AND last_seen >= ?2 AND member NOT IN (\(excluded)) LIMIT ?3
                    )
                    """,
                    [.blob(ByteBuffer(bytes: read.series)), .integer(Int(read.since)), .integer(DistinctCount.maximum)]
                        + read.excluding.map { .blob(ByteBuffer(bytes: $0)) }
                )
                counts.append(Int64(rows.first?.column("n")?.integer ?? 0))
            }
            return counts
        }
    }

    public func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int {
        // Bounds SQLite reads as an index range: a slice ending at 255 has no upper bound.
        let (lower, upper) = DistinctSeriesSlice.bounds(seriesFirstBytes)
        guard let upper else {
            return try await query(
                "DELETE FROM distinct_sightings WHERE series >= ?1 AND last_seen < ?2 RETURNING 1",
                [.blob(ByteBuffer(bytes: lower)), .integer(Int(before))]
            ).count
        }
        return try await query(
            "DELETE FROM distinct_sightings WHERE series >= ?1 AND series < ?2 AND last_seen < ?3 RETURNING 1",
            [.blob(ByteBuffer(bytes: lower)), .blob(ByteBuffer(bytes: upper)), .integer(Int(before))]
        ).count
    }
}
