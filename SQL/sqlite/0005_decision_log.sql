-- AttestGuard schema 5: the decision log. Every verdict with the signal snapshot it was computed from, for
-- explanations and backtests; kept 30 days by default. User ids and IPs are keyed hashes (contract); the snapshot
-- leaves out request.user_id, request.ip and request.device_id. (PostgreSQL partitions it by day.)
CREATE TABLE decision_log (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id           TEXT    NOT NULL,
    decided_at       INTEGER NOT NULL,
    endpoint         TEXT    NOT NULL,
    key_id           TEXT,
    user_hash        TEXT,
    ip_hash          TEXT,
    decision         TEXT    NOT NULL,
    rule_decision    TEXT    NOT NULL,
    score            REAL    NOT NULL,
    rule_set_version TEXT    NOT NULL,
    fired            TEXT    NOT NULL,
    signals          TEXT    NOT NULL
);
CREATE INDEX decision_log_time ON decision_log (decided_at, seq);
