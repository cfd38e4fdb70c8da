-- AttestGuard schema 10: the server processes sharing this database, each as it last reported itself (every few
-- seconds and after each rule reload), so that GET /v1/admin/rules on any process lists the rule set version every
-- process runs. Records not refreshed for a day are purged.
CREATE TABLE server_processes (
    process_id       text        PRIMARY KEY,
    host             text        NOT NULL,
    pid              integer     NOT NULL,
    started_at       timestamptz NOT NULL,
    seen_at          timestamptz NOT NULL,
    rule_set_version text        NOT NULL,
    shadow_version   text,
    rules_rejected   boolean     NOT NULL
);
