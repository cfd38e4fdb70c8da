-- AttestGuard schema 10: the server processes sharing this database, each as it last reported itself (every few
-- seconds and after each rule reload), so that GET /v1/admin/rules lists the rule set version every process runs.
CREATE TABLE server_processes (
    process_id       TEXT    PRIMARY KEY,
    host             TEXT    NOT NULL,
    pid              INTEGER NOT NULL,
    started_at       INTEGER NOT NULL,
    seen_at          INTEGER NOT NULL,
    rule_set_version TEXT    NOT NULL,
    shadow_version   TEXT,
    rules_rejected   INTEGER NOT NULL
);
