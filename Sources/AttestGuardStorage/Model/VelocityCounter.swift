public import Foundation

/// One counter bucket to add to: an event for one subject (a keyed hash of a key, user, device or IP) in the
/// bucket of `granularity` seconds starting at `bucket` (seconds since 1970).
public struct VelocityIncrement: Sendable, Hashable {
    public struct Key: Sendable, Hashable {
        public var appId: String
        public var subject: String
        public var event: String
        public var granularity: Int
        public var bucket: Int64

        public init(appId: String, subject: String, event: String, granularity: Int, bucket: Int64) {
            self.appId = appId
            self.subject = subject
            self.event = event
            self.granularity = granularity
            self.bucket = bucket
        }
    }

    public var key: Key
    public var count: Int64

    public init(key: Key, count: Int64) {
        self.key = key
        self.count = count
    }
}

/// One sum to read: the events of one subject in the buckets of every granularity starting at or after `since`.
/// Finer buckets nest in coarser ones and a rollup moves counts rather than copying them, so when `since` is a
/// multiple of the coarsest granularity the window reaches, the sum counts exactly the events from `since` on.
public struct VelocitySum: Sendable, Hashable {
    public var subject: String
    public var event: String
    public var since: Int64

    public init(subject: String, event: String, since: Int64) {
        self.subject = subject
        self.event = event
        self.since = since
    }
}

/// One flush of one writer (a server process's velocity recorder): committed with its counts, so that a reader
/// can tell whether the store already holds a batch the writer is still flushing.
public struct VelocityFlush: Sendable, Hashable {
    /// The writer's id, random per process.
    public var writer: String
    /// Increases by one per flush of the writer.
    public var sequence: Int64
    public var at: Date

    public init(writer: String, sequence: Int64, at: Date) {
        self.writer = writer
        self.sequence = sequence
        self.at = at
    }
}

/// Velocity sums as one statement read them, with the latest flush of the reader's own writer that the same
/// statement saw committed (0 when none).
public struct VelocityReading: Sendable, Hashable {
    public var totals: [Int64]
    public var flushedSequence: Int64

    public init(totals: [Int64], flushedSequence: Int64) {
        self.totals = totals
        self.flushedSequence = flushedSequence
    }
}

/// Velocity counters shared by every server process through the store.
public protocol VelocityStore: Sendable {
    /// Adds the increments (unique keys), creating buckets as needed, and records `flush` (when given) as its
    /// writer's latest committed flush: all or nothing.
    func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws

    /// The sums, in the order asked (0 where nothing was counted), read in one snapshot with the sequence of
    /// `writer`'s latest committed flush.
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

extension VelocityStore {
    /// Adds increments without a flush record.
    public func addVelocity(_ increments: [VelocityIncrement]) async throws {
        try await addVelocity(increments, flush: nil)
    }

    /// The sums alone.
    public func velocitySums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64] {
        try await velocitySums(appId: appId, sums, writer: nil).totals
    }
}
