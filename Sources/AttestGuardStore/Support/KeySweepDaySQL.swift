public import Foundation

/// The statements of ``KeySweepClaimStore`` in the SQL PostgreSQL and SQLite share, with each dialect's placeholders.
public enum KeySweepDaySQL {
    /// Claims a day: placeholders for the day, the owner, the instant and the stale bound. Returns a row (the owner)
    /// when the owner holds the day afterwards.
    public static func claim(day: String, owner: String, now: String, staleBefore: String) -> String {
        """
        INSERT INTO key_sweep_days (day, owner, claimed_at, renewed_at) VALUES (\(day), \(owner), \(now), \(now))
        ON CONFLICT (day) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at, renewed_at = excluded.renewed_at
        WHERE key_sweep_days.finished_at IS NULL
          AND (key_sweep_days.owner = excluded.owner OR key_sweep_days.renewed_at < \(staleBefore))
        RETURNING owner
        """
    }

    /// Renews the owner's claim of an unfinished day: placeholders for the day, the owner and the instant. Returns a
    /// row when it held the day.
    public static func renew(day: String, owner: String, now: String) -> String {
        "UPDATE key_sweep_days SET renewed_at = \(now) WHERE day = \(day) AND owner = \(owner) AND finished_at IS NULL RETURNING day"
    }

    /// Whether a day is finished, after a claim that did not take it: placeholder for the day. One row, `finished`.
    public static func finished(day: String) -> String {
        "SELECT count(*) AS finished FROM key_sweep_days WHERE day = \(day) AND finished_at IS NOT NULL"
    }

    /// Releases the owner's claim of an unfinished day, so that another claim takes it at once: placeholders for the
    /// day, the owner and an instant before any stale bound.
    public static func release(day: String, owner: String, before: String) -> String {
        "UPDATE key_sweep_days SET renewed_at = \(before) WHERE day = \(day) AND owner = \(owner) AND finished_at IS NULL"
    }

    /// The `renewed_at` a released claim gets: long before any stale bound.
    public static let released = Date(timeIntervalSince1970: 0)

    /// Finishes the owner's day: placeholders for the day, the owner and the instant.
    public static func finish(day: String, owner: String, now: String) -> String {
        "UPDATE key_sweep_days SET renewed_at = \(now), finished_at = \(now) WHERE day = \(day) AND owner = \(owner) AND finished_at IS NULL"
    }
}
