-- AttestGuard schema 36: the decision log's subject and request indexes keyed by a 64-bit hash of the subject, seeded
-- with its app's hash, `hashtextextended(column, hashtextextended(app_id, 0))`, instead of the app id and the subject's
-- text. Every verdict adds an entry to each of the four, at a random place; with keys of the app id and a 32- to
-- 44-character subject they were most of what a verdict's log row costs PostgreSQL (pgbench, 45-row inserts of real
-- verdicts: 36-49 µs of CPU a row with them, 20-25 µs keyed by the subject's hash, 8 µs with the time index alone).
-- The time index is appended to in order and stays as it is. A search compares the hash in the index and the subject
-- and the app on the rows it reads, so a colliding subject costs a filtered row, never a wrong answer; it still reads
-- newest first and stops at its limit (PostgresRiskStore.searchQuery and decisionQuery).
-- The new indexes are built first, under a lock that stops the log's writes but not its reads; the old ones are
-- dropped and the new ones take their names at the end, in the same transaction, under a lock that waits for the
-- log's open reads and holds new ones for that moment. A day's partition cannot be created while the build runs.
CREATE INDEX decision_log_by_key_hashed ON decision_log (hashtextextended(key_id, hashtextextended(app_id, 0)), decided_at, seq)
    WHERE key_id IS NOT NULL;
CREATE INDEX decision_log_by_user_hashed ON decision_log (hashtextextended(user_hash, hashtextextended(app_id, 0)), decided_at, seq)
    WHERE user_hash IS NOT NULL;
CREATE INDEX decision_log_by_device_hashed ON decision_log (hashtextextended(device_hash, hashtextextended(app_id, 0)), decided_at, seq)
    WHERE device_hash IS NOT NULL;
CREATE INDEX decision_log_by_request_hashed ON decision_log (hashtextextended(request_id, hashtextextended(app_id, 0)))
    WHERE request_id IS NOT NULL;
DROP INDEX decision_log_by_key;
DROP INDEX decision_log_by_user;
DROP INDEX decision_log_by_device;
DROP INDEX decision_log_by_request;
ALTER INDEX decision_log_by_key_hashed RENAME TO decision_log_by_key;
ALTER INDEX decision_log_by_user_hashed RENAME TO decision_log_by_user;
ALTER INDEX decision_log_by_device_hashed RENAME TO decision_log_by_device;
ALTER INDEX decision_log_by_request_hashed RENAME TO decision_log_by_request;
