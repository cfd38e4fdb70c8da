-- AttestGuard schema 24: forward-auth answers per app, policy route, outcome and result (passed 1, refused 0), in
-- five-minute buckets (bucket_start: seconds since 1970, a multiple of 300), added in batches by each process and
-- summed by the console's rollout page. Buckets older than eight days are deleted.
CREATE TABLE gateway_checks (
    bucket_start INTEGER NOT NULL,
    app_id       TEXT    NOT NULL,
    route        TEXT    NOT NULL,
    outcome      TEXT    NOT NULL,
    passed       INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (app_id, bucket_start, route, outcome, passed)
);
CREATE INDEX gateway_checks_age ON gateway_checks (bucket_start);
