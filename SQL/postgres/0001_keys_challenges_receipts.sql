-- AttestGuard schema 1: one-time challenges, the key registry, and each key's current receipt.

CREATE TABLE challenges (
    id               bytea       PRIMARY KEY,
    app_id           text        NOT NULL,
    purpose          text        NOT NULL CHECK (purpose IN ('attestation', 'assertion')),
    user_id          text,
    key_id           bytea,
    api_key_name     text,
    issued_at        timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    consumed_at      timestamptz,
    consumed_key_id  bytea,
    consumed_counter bigint,
    consumed_request jsonb
);
CREATE INDEX challenges_per_user ON challenges (app_id, user_id, issued_at);
CREATE INDEX challenges_by_expiry ON challenges (expires_at);

CREATE TABLE app_keys (
    app_id             text        NOT NULL,
    key_id             bytea       NOT NULL,
    user_id            text        NOT NULL,
    device_id          text,
    environment        text        NOT NULL CHECK (environment IN ('development', 'production')),
    public_key         bytea       NOT NULL,
    counter            bigint      NOT NULL DEFAULT 0 CHECK (counter >= 0),
    status             text        NOT NULL CHECK (status IN ('active', 'superseded', 'revoked')),
    attestation_sha256 bytea       NOT NULL,
    os_version         text,
    attested_at        timestamptz NOT NULL,
    last_assertion_at  timestamptz,
    status_changed_at  timestamptz,
    superseded_by      bytea,
    PRIMARY KEY (app_id, key_id)
);
CREATE INDEX app_keys_active_per_device ON app_keys (app_id, user_id, device_id) WHERE status = 'active';

CREATE TABLE receipts (
    app_id       text        NOT NULL,
    key_id       bytea       NOT NULL,
    receipt_type text        NOT NULL,
    receipt      bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    not_before   timestamptz,
    expires_at   timestamptz,
    risk_metric  integer,
    stored_at    timestamptz NOT NULL,
    PRIMARY KEY (app_id, key_id),
    FOREIGN KEY (app_id, key_id) REFERENCES app_keys (app_id, key_id) ON DELETE CASCADE
);
