-- AttestGuard schema 19: fraud labels, and the request id of each logged decision that a label names. A label is a
-- source's word that a subject of an app (a decision by its request id, a key by its base64 id, a user or a device
-- by the decision log's keyed hash) was fraud or legitimate, as of labelled_at; one per (app, subject, source), so
-- that posting it again changes nothing. The backtest reads an app's labels whole; explain finds a decision by its
-- request id through the partial index (a partitioned index: every day partition gets its own).
CREATE TABLE labels (
    app_id       text        NOT NULL,
    subject_kind text        NOT NULL,
    subject      text        NOT NULL,
    source       text        NOT NULL,
    label        text        NOT NULL,
    labelled_at  timestamptz NOT NULL,
    PRIMARY KEY (app_id, subject_kind, subject, source)
);
ALTER TABLE decision_log ADD COLUMN request_id text;
CREATE INDEX decision_log_by_request ON decision_log (app_id, request_id) WHERE request_id IS NOT NULL;
