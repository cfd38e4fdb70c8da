-- AttestGuard schema 23: each app-side outcome report counts once per reporter (the keyed hash of the user), outcome
-- and ramp period, so that the ramp's counters count distinct users. Rows of a period are deleted once the ramp has
-- evaluated it.
CREATE TABLE attestation_outcome_reporters (
    app_id       TEXT    NOT NULL,
    period_start INTEGER NOT NULL,
    reporter     TEXT    NOT NULL,
    outcome      TEXT    NOT NULL,
    PRIMARY KEY (app_id, period_start, reporter, outcome)
);
