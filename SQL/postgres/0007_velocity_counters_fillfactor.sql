-- AttestGuard schema 7: room on every page of velocity_counters for updated rows. A flush adds to thousands of
-- buckets at once; with full pages each new row version went to another page and had both indexes updated. With
-- free space on the page PostgreSQL updates in place (a heap-only tuple: no index entry), which cut a flush's cost
-- several times over. Applies to pages written from now on; VACUUM FULL rewrites older ones.
ALTER TABLE velocity_counters SET (fillfactor = 50);
