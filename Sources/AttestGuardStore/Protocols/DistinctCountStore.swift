/// The sightings behind distinct counts, shared by every server process through the store.
public protocol DistinctCountStore: Sendable {
    /// Records the sightings (one per series and member), each moving its member's last sighting forward, never
    /// back: all or nothing.
    func addDistinctSightings(_ sightings: [DistinctSighting]) async throws

    /// The counts, in the order asked, all from one snapshot, each at most `DistinctCount.maximum`.
    func distinctCounts(_ reads: [DistinctCountRead]) async throws -> [Int64]

    /// Deletes the sightings last seen before `before` whose series id starts with a byte in `seriesFirstBytes`
    /// (a slice of the ids, so that one purge reads a bounded part of the index); returns how many.
    func purgeDistinctSightings(before: Int64, seriesFirstBytes: ClosedRange<UInt8>) async throws -> Int
}
