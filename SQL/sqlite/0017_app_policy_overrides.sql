-- AttestGuard schema 17: an app's policy as changed at run time through PATCH /v1/admin/apps/{appId}/policy. A
-- stored value overrides the configuration file until it is cleared; a null column keeps the file's value. revision
-- counts the writes of a row, so that a change lands only on the row it read.
CREATE TABLE app_policy_overrides (
    app_id                       TEXT    PRIMARY KEY,
    mode                         TEXT,
    attestation_required_percent INTEGER,
    default_protection           TEXT,
    route_protections            TEXT    NOT NULL,
    revision                     INTEGER NOT NULL,
    updated_at                   INTEGER NOT NULL,
    updated_by                   TEXT    NOT NULL
);
