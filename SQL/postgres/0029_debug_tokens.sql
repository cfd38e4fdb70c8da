-- AttestGuard schema 29: debug tokens, which stand for App Attest where there is none (the iOS Simulator, CI
-- runners): one per developer and app, made by an admin, kept as the SHA-256 of the secret (the secret is shown once,
-- at creation), with an expiry, a revocation and a use count that each process adds to behind the requests.
CREATE TABLE debug_tokens (
    id            text        PRIMARY KEY,
    app_id        text        NOT NULL,
    name          text        NOT NULL,
    secret_sha256 bytea       NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    revoked_at    timestamptz,
    created_by    text        NOT NULL,
    uses          bigint      NOT NULL DEFAULT 0 CHECK (uses >= 0),
    last_used_at  timestamptz
);
CREATE INDEX debug_tokens_per_app ON debug_tokens (app_id, created_at);
