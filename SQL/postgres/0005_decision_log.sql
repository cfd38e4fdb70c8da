-- AttestGuard schema 5: the decision log. Every verdict with the signal snapshot it was computed from, for
-- explanations and backtests. Partitioned by day (decision_log_YYYYMMDD, created by the writer as days begin) and
-- kept 30 days by default: retention drops whole partitions. User ids and IPs are keyed hashes (contract); the
-- snapshot leaves out request.user_id, request.ip and request.device_id.
CREATE TABLE decision_log (
    seq              bigserial        NOT NULL,
    app_id           text             NOT NULL,
    decided_at       timestamptz      NOT NULL,
    endpoint         text             NOT NULL,
    key_id           text,
    user_hash        text,
    ip_hash          text,
    decision         text             NOT NULL,
    rule_decision    text             NOT NULL,
    score            double precision NOT NULL,
    rule_set_version text             NOT NULL,
    fired            text             NOT NULL,
    signals          text             NOT NULL
) PARTITION BY RANGE (decided_at);
CREATE INDEX decision_log_time ON decision_log (decided_at, seq);
