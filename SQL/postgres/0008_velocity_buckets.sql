-- AttestGuard schema 8: velocity counters keyed by a 16-byte series id instead of four text columns. A flush
-- upserts thousands of buckets, and with (app_id, subject, event, granularity, bucket) as the key every upsert
-- compared and indexed ~100-byte text keys; (series, bucket) costs about half as much per bucket, and reads
-- find a window's buckets by one short key. The series id is computed by velocity_series() in SQL, from the same
-- four values, so the application's writes and reads are unchanged; the existing counts are carried over.
-- STABLE like convert_to, so that PostgreSQL inlines it into the statements that call it.
CREATE FUNCTION velocity_series(app_id text, subject text, event text, granularity integer) RETURNS bytea
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    AS $$ SELECT substr(sha256(convert_to(app_id || '/' || event || '/' || granularity::text || '/' || subject, 'UTF8')), 1, 16) $$;

CREATE TABLE velocity_buckets (
    series      bytea   NOT NULL,
    bucket      bigint  NOT NULL,
    granularity integer NOT NULL,
    count       bigint  NOT NULL,
    PRIMARY KEY (series, bucket)
) WITH (fillfactor = 50);
-- Expiry deletes old buckets per granularity.
CREATE INDEX velocity_buckets_expiry ON velocity_buckets (granularity, bucket);

INSERT INTO velocity_buckets (series, bucket, granularity, count)
SELECT velocity_series(app_id, subject, event, granularity), bucket, granularity, count FROM velocity_counters;
DROP TABLE velocity_counters;
