-- The Python peer's schema (Benchmarks/peer/): only what its POST /v1/assertions reads and writes, in a database of
-- its own (`peer`, created by prep.py on the benchmark's throw-away cluster). Modelled on AttestGuard's `challenges`
-- and `app_keys` (the columns the assertion path reads and writes, the same primary keys), without receipts,
-- DeviceCheck, velocity, decision log or rule tables.

CREATE TABLE challenges (
    id               bytea       PRIMARY KEY,            -- 32 random bytes (sent base64url)
    app_id           text        NOT NULL,
    purpose          text        NOT NULL CHECK (purpose IN ('attestation', 'assertion')),
    user_id          text,                               -- bound user (NULL: any)
    key_id           bytea,                              -- bound key (NULL: any)
    issued_at        timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    consumed_at      timestamptz,
    consumed_key_id  bytea,
    consumed_counter bigint,
    consumed_request jsonb                               -- the gateway's request the assertion was bound to
);
CREATE INDEX challenges_per_user ON challenges (app_id, user_id, issued_at);
CREATE INDEX challenges_by_expiry ON challenges (expires_at);

CREATE TABLE app_keys (
    app_id            text        NOT NULL,
    key_id            bytea       NOT NULL,              -- SHA-256 of the uncompressed public key
    user_id           text        NOT NULL,
    device_id         text,
    environment       text        NOT NULL CHECK (environment IN ('development', 'production')),
    public_key        bytea       NOT NULL,              -- X9.62 uncompressed P-256 point (65 bytes)
    counter           bigint      NOT NULL DEFAULT 0 CHECK (counter >= 0),
    status            text        NOT NULL CHECK (status IN ('active', 'superseded', 'revoked')),
    attested_at       timestamptz NOT NULL,
    last_assertion_at timestamptz,
    PRIMARY KEY (app_id, key_id)
);
