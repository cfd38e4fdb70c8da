-- AttestGuard schema 9: velocity counted in minute buckets only and rolled up (see the PostgreSQL migration): a
-- flush writes minute buckets, the write-behind service moves minute buckets older than 2 h into hour buckets and
-- hour buckets older than 8 d into day buckets, and a read sums every tier from its window's start.
--
-- Schema 8 counted each event in all three tiers; the copies are removed here so that each event is counted once,
-- exactly: minute buckets from the start of the hour before the last are kept, hour buckets from there back to the
-- start of the day 7 days ago, and day buckets before that.
DELETE FROM velocity_counters
WHERE (granularity = 60 AND bucket < (CAST(strftime('%s', 'now') AS INTEGER) - 3600) / 3600 * 3600)
   OR (granularity = 3600 AND (bucket >= (CAST(strftime('%s', 'now') AS INTEGER) - 3600) / 3600 * 3600
                               OR bucket < (CAST(strftime('%s', 'now') AS INTEGER) - 7 * 86400) / 86400 * 86400))
   OR (granularity = 86400 AND bucket >= (CAST(strftime('%s', 'now') AS INTEGER) - 7 * 86400) / 86400 * 86400);
