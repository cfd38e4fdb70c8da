public import Foundation

/// Velocity counters shared by every server process through the store.
public protocol VelocityStore: Sendable {
    /// Adds the increments (unique keys), creating buckets as needed, and records `flush` (when given) as its
    /// writer's latest committed flush: all or nothing.
    func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws

    /// The sums, in the order asked (0 where nothing was counted), read in one snapshot with the sequence of
    /// `writer`'s latest committed flush. With no sums asked nothing is read: no totals, sequence 0.
    func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading

    /// Moves up to `limit` buckets of `granularity` that start before `before` into the buckets of the `coarser`
    /// granularity that contain them, adding their counts: all or nothing, so that no sum ever counts an event twice
    /// or misses it. Concurrent rollups (one per process) each move different buckets. Returns how many moved.
    func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int

    /// Deletes buckets of `granularity` that start before `before`; returns how many.
    func purgeVelocity(granularity: Int, before: Int64) async throws -> Int

    /// Deletes the flush records of writers whose last flush was before `before` (processes gone); returns how many.
    func purgeVelocityFlushes(before: Date) async throws -> Int
}
