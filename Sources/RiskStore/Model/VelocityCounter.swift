/// One counter bucket to add to: an event for one subject (a keyed hash of a key, user, device or IP) in the
/// bucket of `granularity` seconds starting at `bucket` (seconds since 1970).
public struct VelocityIncrement: Sendable, Hashable {
    public struct Key: Sendable, Hashable, Comparable {
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

        /// The order writers take row locks in, so that two flushing processes never deadlock.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.appId, lhs.subject, lhs.event, lhs.granularity, lhs.bucket) < (rhs.appId, rhs.subject, rhs.event, rhs.granularity, rhs.bucket)
        }
    }

    public var key: Key
    public var count: Int64

    public init(key: Key, count: Int64) {
        self.key = key
        self.count = count
    }
}

/// One sum to read: the events of one subject in the buckets of `granularity` starting at or after `since`.
public struct VelocitySum: Sendable, Hashable {
    public var subject: String
    public var event: String
    public var granularity: Int
    public var since: Int64

    public init(subject: String, event: String, granularity: Int, since: Int64) {
        self.subject = subject
        self.event = event
        self.granularity = granularity
        self.since = since
    }
}

/// Velocity counters shared by every server process through the store.
public protocol VelocityStore: Sendable {
    /// Adds the increments (unique keys), creating buckets as needed.
    func addVelocity(_ increments: [VelocityIncrement]) async throws

    /// The sums, in the order asked (0 where nothing was counted).
    func velocitySums(appId: String, _ sums: [VelocitySum]) async throws -> [Int64]

    /// Deletes buckets of `granularity` that start before `before`; returns how many.
    func purgeVelocity(granularity: Int, before: Int64) async throws -> Int
}
