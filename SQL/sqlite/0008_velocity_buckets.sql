-- AttestGuard schema 8: on PostgreSQL, velocity counters keyed by a 16-byte series id. The embedded store keeps
-- velocity_counters as it is (one writer, no contention); the version is kept so both dialects count alike.
SELECT 1;
