-- AttestGuard schema 21: the automatic attestation rollout. attestation_outcomes counts, per app, ramp period and
-- outcome, the attestation attempts the app-side library reports (attested, failed, rate_limited, unsupported) and
-- the attestations the server accepted (accepted): one row per counter, raised by an atomic upsert. period_start is
-- the period's start in seconds since 1970 (periods are aligned to multiples of the app's ramp period).
CREATE TABLE attestation_outcomes (
    app_id       text   NOT NULL,
    period_start bigint NOT NULL,
    outcome      text   NOT NULL,
    count        bigint NOT NULL,
    PRIMARY KEY (app_id, period_start, outcome)
);

-- Each ramping app's state: the percentage the ramp has reached, ramping/holding/paused/complete, the last period
-- the controller evaluated and what it counted there. revision counts the writes of a row, so that of several server
-- processes only one takes a period's step (a write lands only on the revision it read).
CREATE TABLE attestation_ramps (
    app_id               text        PRIMARY KEY,
    percent              integer     NOT NULL,
    state                text        NOT NULL,
    evaluated_period     bigint      NOT NULL,
    period_attempts      bigint      NOT NULL,
    period_successes     bigint      NOT NULL,
    period_rate_limited  bigint      NOT NULL,
    last_step_at         timestamptz,
    revision             bigint      NOT NULL,
    updated_at           timestamptz NOT NULL,
    updated_by           text        NOT NULL
);
