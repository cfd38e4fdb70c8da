-- AttestGuard schema 17: an app's policy as changed at run time through PATCH /v1/admin/apps/{appId}/policy. A
-- stored value overrides the configuration file until it is cleared; a null column keeps the file's value. Every
-- server process reads the table once per apps.policyReloadSeconds. revision counts the writes of a row, so that a
-- change lands only on the row it read (two operators at once: the second reads again).
CREATE TABLE app_policy_overrides (
    app_id                       text        PRIMARY KEY,
    mode                         text,
    attestation_required_percent integer,
    default_protection           text,
    route_protections            text        NOT NULL,
    revision                     bigint      NOT NULL,
    updated_at                   timestamptz NOT NULL,
    updated_by                   text        NOT NULL
);
