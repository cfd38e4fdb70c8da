-- AttestGuard schema 25: storage settings for the two tables every accepted assertion updates.
-- challenges: issuance writes each row once and fills pages to the brim; consumption then updates consumed_at,
-- consumed_key_id, consumed_counter and consumed_request, which no index covers. On a full page the new row version
-- goes to another page and gets an entry in each of the table's five indexes; with a quarter of each page free it
-- stays on its page as a heap-only tuple and no index is touched (measured with pgbench on the consumption update:
-- 57 % of updates heap-only at the default fillfactor, 79 % at 75).
-- app_keys: every accepted assertion updates its key's counter and last_assertion_at, which no index covers either;
-- room on the page keeps those updates heap-only too.
-- Both are vacuumed once 5 % of their rows changed (default 20 %), so the dead versions this churn leaves are pruned
-- before pages fill, and analysed only once as many rows changed as the table holds (default 10 %): each ANALYZE makes
-- every connection re-plan its prepared statements over the table, and neither consumption nor counter updates change
-- a statistic those statements' plans use (they find rows by key).
-- fillfactor applies to pages written from now on; VACUUM FULL rewrites older ones.
ALTER TABLE challenges SET (fillfactor = 75, autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 1.0);
ALTER TABLE app_keys SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 1.0);
