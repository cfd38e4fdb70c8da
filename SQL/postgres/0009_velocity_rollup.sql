-- AttestGuard schema 9: velocity counted in minute buckets only and rolled up. Schema 8 added every event to its
-- minute, hour and day bucket, 12 upserts per scored request (4 subjects x 3), and those flushes were most of
-- PostgreSQL's work under load. Now a flush writes the minute buckets (4 per request) and each process's
-- write-behind service moves minute buckets older than 2 h into hour buckets, and hour buckets older than 8 d into
-- day buckets, a move per statement (delete and add together). A series id therefore no longer depends on the
-- granularity: every tier of one app, subject and event shares it, and a bucket is keyed by (series, bucket,
-- granularity). A read sums every tier from its window's start, which counts each event exactly once.
--
-- The new series id is the one schema 8 gave the minute tier, so minute buckets carry over unchanged. The hour and
-- day buckets of schema 8 are keyed by ids that cannot be traced back to their series, so they are deleted: after
-- this upgrade, windows longer than the minute buckets held (about 2 h) count from the upgrade on. Schema 8 was
-- never released.
CREATE FUNCTION velocity_series(app_id text, subject text, event text) RETURNS bytea
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS $$ SELECT substr(sha256(convert_to(app_id || '/' || event || '/60/' || subject, 'UTF8')), 1, 16) $$;

DELETE FROM velocity_buckets WHERE granularity <> 60;
ALTER TABLE velocity_buckets DROP CONSTRAINT velocity_buckets_pkey, ADD PRIMARY KEY (series, bucket, granularity);
DROP FUNCTION velocity_series(text, text, text, integer);
