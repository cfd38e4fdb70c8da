-- AttestGuard schema 33: each app's review queue. An item is opened by a `review` verdict of one of the app's chosen
-- actions, about the verdict's subject (its key, else its user's keyed hash, else its device's, else the request);
-- later review verdicts about a subject whose item is pending fold into it. Analysts claim and decide items; a
-- decision labels the subject (`labels`, source `review`) in the same transaction. At most one pending (open or
-- claimed) item per subject; the queue reads pending items oldest first, and the sweep finds them by expiry.
CREATE TABLE review_items (
    id               integer PRIMARY KEY AUTOINCREMENT,
    app_id           text    NOT NULL,
    subject_kind     text    NOT NULL CHECK (subject_kind IN ('decision', 'key', 'user', 'device')),
    subject          text    NOT NULL,
    key_id           text,
    user_hash        text,
    device_hash      text,
    endpoint         text    NOT NULL,
    action           text,
    score            real    NOT NULL,
    fired            text    NOT NULL,
    rule_set_version text    NOT NULL,
    first_request_id text,
    last_request_id  text,
    verdicts         integer NOT NULL,
    opened_at        integer NOT NULL,
    last_verdict_at  integer NOT NULL,
    expires_at       integer NOT NULL,
    status           text    NOT NULL CHECK (status IN ('open', 'claimed', 'approved', 'rejected', 'expired')),
    claimed_by       text,
    claimed_at       integer,
    decided_by       text,
    decided_at       integer,
    note             text    NOT NULL DEFAULT '',
    follow_ups       text    NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX review_items_pending_subject ON review_items (app_id, subject_kind, subject) WHERE status IN ('open', 'claimed');
CREATE INDEX review_items_pending_expiry ON review_items (expires_at) WHERE status IN ('open', 'claimed');
CREATE INDEX review_items_app ON review_items (app_id, id);
CREATE INDEX review_items_closed ON review_items (coalesce(decided_at, expires_at)) WHERE status NOT IN ('open', 'claimed');
