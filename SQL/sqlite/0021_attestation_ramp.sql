-- AttestGuard schema 21: the automatic attestation rollout. attestation_outcomes counts, per app, ramp period and
-- outcome, the attestation attempts the app-side library reports (attested, failed, rate_limited, unsupported) and
-- the attestations the server accepted (accepted): one row per counter, raised by an atomic upsert. period_start is
-- the period's start in seconds since 1970.
CREATE TABLE attestation_outcomes (
    app_id       TEXT    NOT NULL,
    period_start INTEGER NOT NULL,
    outcome      TEXT    NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (app_id, period_start, outcome)
);

-- Each ramping app's state; revision counts the writes of a row, so that only one process takes a period's step.
CREATE TABLE attestation_ramps (
    app_id               TEXT    PRIMARY KEY,
    percent              INTEGER NOT NULL,
    state                TEXT    NOT NULL,
    evaluated_period     INTEGER NOT NULL,
    period_attempts      INTEGER NOT NULL,
    period_successes     INTEGER NOT NULL,
    period_rate_limited  INTEGER NOT NULL,
    last_step_at         INTEGER,
    revision             INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    updated_by           TEXT    NOT NULL
);
