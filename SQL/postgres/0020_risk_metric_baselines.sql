-- AttestGuard schema 20: each app's risk-metric baseline, one row per app per UTC day, kept as history. A row is the
-- distribution of the current receipts' risk metrics over the app's active keys that have one, when it was computed:
-- the key count, the nearest-rank percentiles (percentile_disc), the shares of keys at or above 4 and 10, and the
-- histogram (metric -> keys, a JSON object) that lets every server process place a key's metric in it in memory.
-- The primary key makes the daily computation happen once per app and day however many processes run it.
CREATE TABLE risk_metric_baselines (
    app_id       text             NOT NULL,
    day          date             NOT NULL,
    computed_at  timestamptz      NOT NULL,
    computed_by  text             NOT NULL,
    key_count    integer          NOT NULL CHECK (key_count >= 0),
    p50          integer,
    p90          integer,
    p99          integer,
    share_ge_4   double precision NOT NULL,
    share_ge_10  double precision NOT NULL,
    histogram    text             NOT NULL,
    PRIMARY KEY (app_id, day)
);
