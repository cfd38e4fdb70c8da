-- AttestGuard schema 23: each app-side outcome report counts once per reporter, outcome and ramp period. reporter is
-- the keyed hash of the reporting user (as the decision log keeps it, never the id): a user who reports the same
-- outcome again in the period adds nothing, so the ramp's counters count distinct users and one account cannot pause
-- a rollout. Rows of a period are deleted once the ramp has evaluated it.
CREATE TABLE attestation_outcome_reporters (
    app_id       text   NOT NULL,
    period_start bigint NOT NULL,
    reporter     text   NOT NULL,
    outcome      text   NOT NULL,
    PRIMARY KEY (app_id, period_start, reporter, outcome)
);
