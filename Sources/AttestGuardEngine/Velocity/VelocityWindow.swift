/// How velocity is bucketed and read. Events are counted in minute buckets; the write-behind service later moves
/// (rolls up) minute buckets older than 2 h into hour buckets, hour buckets older than 8 d into day buckets, and
/// deletes day buckets older than 31 d. A window starts at a multiple of the coarsest bucket it may reach (a minute
/// up to an hour, an hour up to a week, a day beyond) and sums every bucket of every tier from there on: buckets
/// nest and a rollup moves counts, so each event is counted once. The count therefore covers the last `window`
/// seconds plus the part of one bucket before it (under 1 minute, 1 hour or 1 day): an edge error that only ever
/// overcounts, the safe side for fraud rules.
enum VelocityWindow {
    /// The granularity events are counted at, and the two they are rolled up into.
    static let minute = 60
    static let hour = 3_600
    static let day = 86_400

    /// One rollup: buckets of `granularity` older than `after` seconds move into buckets of `coarser`.
    struct Rollup: Sendable {
        var granularity: Int
        var coarser: Int
        var after: Int
    }

    /// The rollups, finest first. Each waits an hour or a day beyond the longest window read at its granularity
    /// (1 h, 7 d), so that no read of a finer window meets a coarse bucket that straddles its start.
    static let rollups = [Rollup(granularity: minute, coarser: hour, after: 2 * hour), Rollup(granularity: hour, coarser: day, after: 8 * day)]

    /// How long day buckets are kept (a little over the longest window, 30 d).
    static let retention = 31 * day

    static func granularity(for window: Double) -> Int {
        window <= Double(hour) ? minute : window <= Double(7 * day) ? hour : day
    }

    /// The first bucket start a window ending at `now` reads.
    static func since(now: Double, window: Double, granularity: Int) -> Int64 {
        let oldest = Int64((now - window).rounded(.down))
        return bucket(of: oldest, granularity: granularity)
    }

    /// Where rollup `rollup` stops at `now`: the start of the coarse bucket holding the instant `after` ago, so that
    /// a coarse bucket is only ever made of whole ones.
    static func rollupCutoff(_ rollup: Rollup, now: Int64) -> Int64 {
        bucket(of: now - Int64(rollup.after), granularity: rollup.coarser)
    }

    static func bucket(of second: Int64, granularity: Int) -> Int64 {
        let size = Int64(granularity)
        return second >= 0 ? second / size * size : ((second - size + 1) / size) * size
    }
}
