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

    /// Finishes the owner's day: placeholders for the day, the owner and the instant.
    public static func finish(day: String, owner: String, now: String) -> String {
        "UPDATE key_sweep_days SET renewed_at = \(now), finished_at = \(now) WHERE day = \(day) AND owner = \(owner) AND finished_at IS NULL"
    }
}
