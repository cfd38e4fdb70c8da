-- AttestGuard schema 4: velocity counters, bucketed (never one row per event). An event adds 1 to its minute, hour
-- and day bucket; a window is summed from the finest granularity that spans it. `subject` is a keyed hash
-- (HMAC-SHA-256 with the configured key) of the dimension and its value, never the user id or IP itself.
CREATE TABLE velocity_counters (
    app_id      text    NOT NULL,
    subject     text    NOT NULL,
    event       text    NOT NULL,
    granularity integer NOT NULL,
    bucket      bigint  NOT NULL,
    count       bigint  NOT NULL,
    PRIMARY KEY (app_id, subject, event, granularity, bucket)
);
-- Expiry deletes old buckets per granularity.
CREATE INDEX velocity_counters_expiry ON velocity_counters (granularity, bucket);
