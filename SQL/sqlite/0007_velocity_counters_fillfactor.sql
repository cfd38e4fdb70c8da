-- AttestGuard schema 7: on PostgreSQL, free space on velocity_counters pages for in-place updates. SQLite has no
-- such setting; the version is kept so that both dialects count schema versions alike.
SELECT 1;
