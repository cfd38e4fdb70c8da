-- AttestGuard schema 24: forward-auth answers per app, policy route, outcome (verified, unattested, missing, invalid,
-- replayed, denied, open, error) and result (passed or refused), in five-minute buckets (bucket_start: seconds since
-- 1970, a multiple of 300). Each process counts in memory and adds its counts in batches behind the request path;
-- the console's rollout page sums them over its range, so that an operator sees what `require` would refuse on a
-- route before turning it on. Buckets older than eight days are deleted.
CREATE TABLE gateway_checks (
    bucket_start bigint  NOT NULL,
    app_id       text    NOT NULL,
    route        text    NOT NULL,
    outcome      text    NOT NULL,
    passed       boolean NOT NULL,
    count        bigint  NOT NULL,
    PRIMARY KEY (app_id, bucket_start, route, outcome, passed)
);
CREATE INDEX gateway_checks_age ON gateway_checks (bucket_start);
