-- AttestGuard schema 22: receipt refresh only for keys in use. last_used_at is the latest instant a verdict named
-- the key, written behind the request path (at most about once an hour per key and process); a key's last use is the
-- latest of attested_at, last_assertion_at and last_used_at. dormant_since marks a receipt the scheduler took out of
-- the refresh schedule because its key went unused for receipts.dormantAfterDays: leases and the backlog skip it
-- until the key's next use clears it, and it is due at once. The due index leaves such receipts out, so a lease
-- never scans past them however many there are.
ALTER TABLE app_keys ADD COLUMN last_used_at timestamptz;
ALTER TABLE receipts ADD COLUMN dormant_since timestamptz;
DROP INDEX receipts_due;
CREATE INDEX receipts_due ON receipts (next_refresh_at) WHERE next_refresh_at IS NOT NULL AND dormant_since IS NULL;
CREATE INDEX receipts_dormant ON receipts (app_id, key_id) WHERE dormant_since IS NOT NULL;
