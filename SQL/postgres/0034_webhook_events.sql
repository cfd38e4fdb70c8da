-- AttestGuard schema 34: the webhook outbox. Each event is written once per receiver and delivered at least once:
-- a process claims due events (a lease, so that one that dies mid-attempt leaves the event to another after the
-- lease), signs and sends each, and records the outcome. Only the first pending event of a receiver and subject can
-- be claimed, so that events about one subject reach a receiver in writing order; the others wait parked (their
-- next_attempt_at far ahead) until the one before them finishes, so that a claim reads only due events. Every attempt is logged in
-- webhook_attempts. Delivered and given-up events go after the decision log's retention.
CREATE TABLE webhook_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        text NOT NULL,
    webhook         text NOT NULL,
    app_id          text,
    subject         text NOT NULL,
    type            text NOT NULL,
    payload         text NOT NULL,
    created_at      timestamptz NOT NULL,
    retry_since     timestamptz NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    lease_token     text,
    lease_until     timestamptz,
    finished_at     timestamptz,
    last_status     integer,
    last_error      text NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX webhook_events_event ON webhook_events (event_id, webhook);
CREATE INDEX webhook_events_pending ON webhook_events (webhook, subject, id) WHERE status = 'pending';
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_events_finished ON webhook_events (finished_at) WHERE status <> 'pending';
CREATE TABLE webhook_attempts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_row    bigint NOT NULL,
    attempt      integer NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
    attempted_at timestamptz NOT NULL,
    duration_ms  integer NOT NULL,
    status_code  integer,
    error        text NOT NULL,
    process      text NOT NULL
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_row, id);
