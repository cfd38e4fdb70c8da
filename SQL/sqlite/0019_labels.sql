-- AttestGuard schema 19: fraud labels, and the request id of each logged decision that a label names. A label is a
-- source's word that a subject of an app (a decision by its request id, a key by its base64 id, a user or a device
-- by the decision log's keyed hash) was fraud or legitimate, as of labelled_at; one per (app, subject, source), so
-- that posting it again changes nothing. explain finds a decision by its request id through the partial index.
CREATE TABLE labels (
    app_id       TEXT    NOT NULL,
    subject_kind TEXT    NOT NULL,
    subject      TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    label        TEXT    NOT NULL,
    labelled_at  INTEGER NOT NULL,
    PRIMARY KEY (app_id, subject_kind, subject, source)
);
ALTER TABLE decision_log ADD COLUMN request_id TEXT;
CREATE INDEX decision_log_by_request ON decision_log (app_id, request_id) WHERE request_id IS NOT NULL;
