-- AttestGuard schema 31: the actions of fired rules (`then:` in the rules). One row per app, action and target holds
-- the last run: a claim holds until `held_until`, so that each action runs at most once per target and period
-- across every process, and the row then says how the run ended. A rule that sets DeviceCheck bit 1 files it at
-- once and leaves a mark until the subject's next device token carries it to Apple.
CREATE TABLE rule_action_runs (
    app_id       text        NOT NULL,
    action       text        NOT NULL,
    target       text        NOT NULL,
    rule_id      text        NOT NULL,
    description  text        NOT NULL,
    claimed_at   timestamptz NOT NULL,
    held_until   timestamptz NOT NULL,
    outcome      text        NOT NULL CHECK (outcome IN ('running', 'done', 'unchanged', 'failed')),
    detail       text        NOT NULL,
    PRIMARY KEY (app_id, action, target)
);
CREATE INDEX rule_action_runs_claimed_at ON rule_action_runs (claimed_at DESC);
CREATE INDEX rule_action_runs_held_until ON rule_action_runs (held_until);
CREATE TABLE devicecheck_bit1_pending (
    scope        text        NOT NULL,
    environment  text        NOT NULL,
    subject_kind text        NOT NULL,
    subject      text        NOT NULL,
    rule_id      text        NOT NULL,
    flagged_at   timestamptz NOT NULL,
    PRIMARY KEY (scope, environment, subject_kind, subject)
);
