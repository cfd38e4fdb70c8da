-- AttestGuard schema 6: the last committed velocity flush of each writer (one per server process, a random id).
-- A flush upserts its row in the statement that adds its counts, and a velocity read returns the row of its own
-- writer with the sums: so a process knows whether the batch it is flushing is already in the sums it read, and
-- adds it exactly once without holding reads back while the flush runs. Rows of writers gone for a day are purged.
CREATE TABLE velocity_flushes (
    writer     text        PRIMARY KEY,
    sequence   bigint      NOT NULL,
    flushed_at timestamptz NOT NULL
);
