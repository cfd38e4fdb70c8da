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
