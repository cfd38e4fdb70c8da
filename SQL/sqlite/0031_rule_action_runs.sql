-- AttestGuard schema 31: the actions of fired rules (`then:` in the rules). One row per app, action and target holds
-- the last run: a claim holds until `held_until`, so that each action runs at most once per target and period
-- across every process, and the row then says how the run ended. A rule that sets DeviceCheck bit 1 files it at
-- once and leaves a mark until the subject's next device token carries it to Apple.
CREATE TABLE rule_action_runs (
    app_id       TEXT    NOT NULL,
    action       TEXT    NOT NULL,
    target       TEXT    NOT NULL,
    rule_id      TEXT    NOT NULL,
    description  TEXT    NOT NULL,
    claimed_at   INTEGER NOT NULL,
    held_until   INTEGER NOT NULL,
    outcome      TEXT    NOT NULL CHECK (outcome IN ('running', 'done', 'unchanged', 'failed')),
    detail       TEXT    NOT NULL,
    PRIMARY KEY (app_id, action, target)
);
CREATE INDEX rule_action_runs_claimed_at ON rule_action_runs (claimed_at DESC);
CREATE INDEX rule_action_runs_held_until ON rule_action_runs (held_until);
CREATE TABLE devicecheck_bit1_pending (
    scope        TEXT    NOT NULL,
    environment  TEXT    NOT NULL,
    subject_kind TEXT    NOT NULL,
    subject      TEXT    NOT NULL,
    rule_id      TEXT    NOT NULL,
    flagged_at   INTEGER NOT NULL,
    PRIMARY KEY (scope, environment, subject_kind, subject)
);
