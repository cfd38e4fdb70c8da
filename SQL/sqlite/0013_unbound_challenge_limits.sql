-- AttestGuard schema 13: challenges issued without a user carry the keyed hash of the client's address (its /64
-- for IPv6), so that they are limited per (app, client) and, unexpired, per app.
ALTER TABLE challenges ADD COLUMN client_hash TEXT;
CREATE INDEX challenges_unbound_per_client ON challenges (app_id, client_hash, issued_at) WHERE user_id IS NULL;
CREATE INDEX challenges_unbound_per_app ON challenges (app_id, expires_at) WHERE user_id IS NULL;
