-- AttestGuard schema 16: the decision log searched by subject. device_hash is the keyed hash of the request's
-- device id, made as user_hash and ip_hash are (rows written before this version have none). One index per search,
-- each by app, subject and time with seq to order ties, so a page is read in index order and stops at its limit.
-- Each index is partial: a row without the subject (a score request without a key or a device) costs it nothing.
-- They are partitioned indexes: every day partition, and each one the writer creates later, gets its own.
ALTER TABLE decision_log ADD COLUMN device_hash text;
CREATE INDEX decision_log_by_key ON decision_log (app_id, key_id, decided_at, seq) WHERE key_id IS NOT NULL;
CREATE INDEX decision_log_by_user ON decision_log (app_id, user_hash, decided_at, seq) WHERE user_hash IS NOT NULL;
CREATE INDEX decision_log_by_device ON decision_log (app_id, device_hash, decided_at, seq) WHERE device_hash IS NOT NULL;
