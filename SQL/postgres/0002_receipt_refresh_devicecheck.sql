-- AttestGuard schema 2: receipt refresh scheduling with leases, the risk-metric history, DeviceCheck bits.

-- When each receipt is next redeemed, who holds it right now (a lease that expires), and how the last try went.
ALTER TABLE receipts ADD COLUMN next_refresh_at  timestamptz;
ALTER TABLE receipts ADD COLUMN lease_owner      text;
ALTER TABLE receipts ADD COLUMN lease_expires_at timestamptz;
ALTER TABLE receipts ADD COLUMN attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0);
ALTER TABLE receipts ADD COLUMN last_attempt_at  timestamptz;
ALTER TABLE receipts ADD COLUMN last_outcome     text;
ALTER TABLE receipts ADD COLUMN metric_stale     boolean     NOT NULL DEFAULT false;
ALTER TABLE receipts ADD COLUMN refreshed_at     timestamptz;
UPDATE receipts SET next_refresh_at = stored_at;
CREATE INDEX receipts_due ON receipts (next_refresh_at) WHERE next_refresh_at IS NOT NULL;
CREATE INDEX receipts_retrying ON receipts (last_attempt_at) WHERE attempts > 0;

-- One row per verified receipt: redemption is at-least-once, so a replayed commit finds its row already there.
CREATE TABLE risk_metric_history (
    app_id             text        NOT NULL,
    key_id             bytea       NOT NULL,
    receipt_created_at timestamptz NOT NULL,
    risk_metric        integer     NOT NULL CHECK (risk_metric >= 0),
    observed_at        timestamptz NOT NULL,
    PRIMARY KEY (app_id, key_id, receipt_created_at),
    FOREIGN KEY (app_id, key_id) REFERENCES app_keys (app_id, key_id) ON DELETE CASCADE
);

-- Apple's two bits per device and team, stored against the subject the caller named (device tokens are never kept).
CREATE TABLE devicecheck_bits (
    team_id          text        NOT NULL,
    environment      text        NOT NULL CHECK (environment IN ('development', 'production')),
    subject_kind     text        NOT NULL CHECK (subject_kind IN ('key', 'user', 'device')),
    subject          text        NOT NULL,
    bit0             boolean,
    bit1             boolean,
    found            boolean     NOT NULL,
    last_update_time text,
    observed_at      timestamptz NOT NULL,
    PRIMARY KEY (team_id, environment, subject_kind, subject)
);
