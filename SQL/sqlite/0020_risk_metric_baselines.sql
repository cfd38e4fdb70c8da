-- AttestGuard schema 20: each app's risk-metric baseline, one row per app per UTC day (`YYYY-MM-DD`), kept as
-- history: the distribution of the current receipts' risk metrics over the app's active keys that have one (key
-- count, nearest-rank percentiles, shares of keys at or above 4 and 10, and the histogram metric -> keys as a JSON
-- object). The primary key makes the daily computation happen once per app and day.
CREATE TABLE risk_metric_baselines (
    app_id       TEXT    NOT NULL,
    day          TEXT    NOT NULL,
    computed_at  INTEGER NOT NULL,
    computed_by  TEXT    NOT NULL,
    key_count    INTEGER NOT NULL CHECK (key_count >= 0),
    p50          INTEGER,
    p90          INTEGER,
    p99          INTEGER,
    share_ge_4   REAL    NOT NULL,
    share_ge_10  REAL    NOT NULL,
    histogram    TEXT    NOT NULL,
    PRIMARY KEY (app_id, day)
);
