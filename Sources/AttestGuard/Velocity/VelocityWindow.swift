/// How a window is read from buckets: from the finest granularity that spans it (minutes up to an hour, hours up
/// to a week, days beyond), summing every bucket that overlaps the window. The count therefore covers the last
/// `window` seconds plus at most one bucket before it (up to 1 minute, 1 hour or 1 day): an edge error that only
/// ever overcounts, the safe side for fraud rules.
enum VelocityWindow {
    /// Bucket lengths, in seconds, and how long buckets of each are kept (a little over the longest window each
    /// serves).
    static let granularities: [(seconds: Int, retention: Int)] = [(60, 2 * 3_600), (3_600, 8 * 86_400), (86_400, 31 * 86_400)]

    static func granularity(for window: Double) -> Int {
        window <= 3_600 ? 60 : window <= 7 * 86_400 ? 3_600 : 86_400
    }

    /// The first bucket start a window ending at `now` reads.
    static func since(now: Double, window: Double, granularity: Int) -> Int64 {
        let oldest = Int64((now - window).rounded(.down))
        return bucket(of: oldest, granularity: granularity)
    }

    static func bucket(of second: Int64, granularity: Int) -> Int64 {
        let size = Int64(granularity)
        return second >= 0 ? second / size * size : ((second - size + 1) / size) * size
    }
}
