-- AttestGuard schema 15: on PostgreSQL, a function that commits an accepted assertion in one round trip. The
-- embedded store commits in its own write transaction; the version is kept so that both dialects count alike.
SELECT 1;
