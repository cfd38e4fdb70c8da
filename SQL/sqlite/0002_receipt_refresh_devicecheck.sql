-- AttestGuard schema 2: receipt refresh scheduling with leases, the risk-metric history, DeviceCheck bits.
-- Times are integer milliseconds since 1970-01-01 UTC; booleans are 0 or 1.

-- When each receipt is next redeemed, who holds it right now (a lease that expires), and how the last try went.
ALTER TABLE receipts ADD COLUMN next_refresh_at  INTEGER;
ALTER TABLE receipts ADD COLUMN lease_owner      TEXT;
ALTER TABLE receipts ADD COLUMN lease_expires_at INTEGER;
ALTER TABLE receipts ADD COLUMN attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0);
ALTER TABLE receipts ADD COLUMN last_attempt_at  INTEGER;
ALTER TABLE receipts ADD COLUMN last_outcome     TEXT;
ALTER TABLE receipts ADD COLUMN metric_stale     INTEGER NOT NULL DEFAULT 0 CHECK (metric_stale IN (0, 1));
ALTER TABLE receipts ADD COLUMN refreshed_at     INTEGER;
UPDATE receipts SET next_refresh_at = stored_at;
CREATE INDEX receipts_due ON receipts (next_refresh_at) WHERE next_refresh_at IS NOT NULL;
CREATE INDEX receipts_retrying ON receipts (last_attempt_at) WHERE attempts > 0;

-- One row per verified receipt: redemption is at-least-once, so a replayed commit finds its row already there.
CREATE TABLE risk_metric_history (
    app_id             TEXT    NOT NULL,
    key_id             BLOB    NOT NULL,
    receipt_created_at INTEGER NOT NULL,
    risk_metric        INTEGER NOT NULL CHECK (risk_metric >= 0),
    observed_at        INTEGER NOT NULL,
    PRIMARY KEY (app_id, key_id, receipt_created_at),
    FOREIGN KEY (app_id, key_id) REFERENCES app_keys (app_id, key_id) ON DELETE CASCADE
) STRICT;

-- Apple's two bits per device and team, stored against the subject the caller named (device tokens are never kept).
CREATE TABLE devicecheck_bits (
    team_id          TEXT    NOT NULL,
    environment      TEXT    NOT NULL CHECK (environment IN ('development', 'production')),
    subject_kind     TEXT    NOT NULL CHECK (subject_kind IN ('key', 'user', 'device')),
    subject          TEXT    NOT NULL,
    bit0             INTEGER CHECK (bit0 IN (0, 1)),
    bit1             INTEGER CHECK (bit1 IN (0, 1)),
    found            INTEGER NOT NULL CHECK (found IN (0, 1)),
    last_update_time TEXT,
    observed_at      INTEGER NOT NULL,
    PRIMARY KEY (team_id, environment, subject_kind, subject)
) STRICT;
