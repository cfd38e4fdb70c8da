-- AttestGuard schema 1: one-time challenges, the key registry, and each key's current receipt.
-- Times are integer milliseconds since 1970-01-01 UTC.

CREATE TABLE challenges (
    id               BLOB    PRIMARY KEY,
    app_id           TEXT    NOT NULL,
    purpose          TEXT    NOT NULL CHECK (purpose IN ('attestation', 'assertion')),
    user_id          TEXT,
    key_id           BLOB,
    api_key_name     TEXT,
    issued_at        INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    consumed_at      INTEGER,
    consumed_key_id  BLOB,
    consumed_counter INTEGER,
    consumed_request TEXT
) STRICT;
CREATE INDEX challenges_per_user ON challenges (app_id, user_id, issued_at);
CREATE INDEX challenges_by_expiry ON challenges (expires_at);

CREATE TABLE app_keys (
    app_id             TEXT    NOT NULL,
    key_id             BLOB    NOT NULL,
    user_id            TEXT    NOT NULL,
    device_id          TEXT,
    environment        TEXT    NOT NULL CHECK (environment IN ('development', 'production')),
    public_key         BLOB    NOT NULL,
    counter            INTEGER NOT NULL DEFAULT 0 CHECK (counter >= 0),
    status             TEXT    NOT NULL CHECK (status IN ('active', 'superseded', 'revoked')),
    attestation_sha256 BLOB    NOT NULL,
    os_version         TEXT,
    attested_at        INTEGER NOT NULL,
    last_assertion_at  INTEGER,
    status_changed_at  INTEGER,
    superseded_by      BLOB,
    PRIMARY KEY (app_id, key_id)
) STRICT;
CREATE INDEX app_keys_active_per_device ON app_keys (app_id, user_id, device_id) WHERE status = 'active';

CREATE TABLE receipts (
    app_id       TEXT    NOT NULL,
    key_id       BLOB    NOT NULL,
    receipt_type TEXT    NOT NULL,
    receipt      BLOB    NOT NULL,
    created_at   INTEGER NOT NULL,
    not_before   INTEGER,
    expires_at   INTEGER,
    risk_metric  INTEGER,
    stored_at    INTEGER NOT NULL,
    PRIMARY KEY (app_id, key_id),
    FOREIGN KEY (app_id, key_id) REFERENCES app_keys (app_id, key_id) ON DELETE CASCADE
) STRICT;
