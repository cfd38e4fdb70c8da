-- AttestGuard schema 16: the decision log searched by subject. device_hash is the keyed hash of the request's
-- device id, made as user_hash and ip_hash are (rows written before this version have none). One partial index per
-- search, by app, subject and time (seq, the rowid, orders ties as the last column of every index).
ALTER TABLE decision_log ADD COLUMN device_hash TEXT;
CREATE INDEX decision_log_by_key ON decision_log (app_id, key_id, decided_at) WHERE key_id IS NOT NULL;
CREATE INDEX decision_log_by_user ON decision_log (app_id, user_hash, decided_at) WHERE user_hash IS NOT NULL;
CREATE INDEX decision_log_by_device ON decision_log (app_id, device_hash, decided_at) WHERE device_hash IS NOT NULL;
