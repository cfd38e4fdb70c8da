-- AttestGuard schema 38: the value checks of `app_keys` and `challenges` as domains.
-- PostgreSQL reads a table's CHECK constraints from their stored text and plans them again in every statement that
-- updates or inserts one of its rows, whichever columns it sets: for these two tables' four checks, about 100,000
-- instructions of each assertions' commit (Benchmarks/results/2026-12-04-check-domains.md), and their share of each
-- challenge's insert and each key's update. A domain's check is cached with the type and runs only where a
-- value is assigned to the column, so the same values are refused where they were, and the statements that leave
-- the column alone no longer pay for it.
-- The columns keep their base types for clients (PostgreSQL describes a domain's column by its base type). Each
-- column first becomes a domain without a check, which rewrites no table; adding the check then reads the rows once,
-- under a lock that holds off writes to the table until it is done. `app_keys_active_per_device` is rebuilt, since
-- its condition names `status`. A server still running holds prepared statements whose rows now have another type,
-- which PostgreSQL refuses from then on (0A000): a server of this version closes such a connection and runs the
-- statement on another, but older ones fail their assertions and verdicts until restarted, so restart them at once.
CREATE DOMAIN key_environment AS text;
CREATE DOMAIN key_status AS text;
CREATE DOMAIN key_counter AS bigint;
CREATE DOMAIN challenge_purpose AS text;

ALTER TABLE app_keys
    DROP CONSTRAINT app_keys_environment_check,
    DROP CONSTRAINT app_keys_status_check,
    DROP CONSTRAINT app_keys_counter_check,
    ALTER COLUMN environment TYPE key_environment,
    ALTER COLUMN status TYPE key_status,
    ALTER COLUMN counter TYPE key_counter;
ALTER TABLE challenges
    DROP CONSTRAINT challenges_purpose_check,
    ALTER COLUMN purpose TYPE challenge_purpose;

ALTER DOMAIN key_environment ADD CONSTRAINT key_environment_known CHECK (VALUE IN ('development', 'production'));
ALTER DOMAIN key_status ADD CONSTRAINT key_status_known CHECK (VALUE IN ('active', 'superseded', 'revoked'));
ALTER DOMAIN key_counter ADD CONSTRAINT key_counter_not_negative CHECK (VALUE >= 0);
ALTER DOMAIN challenge_purpose ADD CONSTRAINT challenge_purpose_known CHECK (VALUE IN ('attestation', 'assertion'));

-- A column's statistics go with its old type: the planner gets them back now rather than at the next autovacuum.
ANALYZE app_keys (environment, status, counter);
ANALYZE challenges (purpose);
