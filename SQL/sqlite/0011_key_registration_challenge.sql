-- AttestGuard schema 11: each key remembers the challenge that registered it (its SHA-256, never the challenge
-- itself) and that challenge's expiry, so that re-submitting the same attestation is idempotent only with that
-- challenge and only until it expires. Keys registered before this migration have neither: re-submitting their
-- attestation is challenge_used.
ALTER TABLE app_keys ADD COLUMN registration_challenge_sha256 BLOB;
ALTER TABLE app_keys ADD COLUMN registration_challenge_expires_at INTEGER;
