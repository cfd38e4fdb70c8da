-- AttestGuard schema 14: when a user's device last passed Apple's DeviceCheck validation (validate_device_token)
-- in an app, recorded by POST /v1/app/devicecheck once per session and read by scoring (devicecheck.validated_at,
-- devicecheck.validated_age) without calling Apple. One row per (app, user), keeping the latest instant and the
-- environment Apple was asked in. The device token is never stored.
CREATE TABLE devicecheck_validations (
    app_id       TEXT    NOT NULL,
    user_id      TEXT    NOT NULL,
    environment  TEXT    NOT NULL CHECK (environment IN ('development', 'production')),
    validated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, user_id)
) STRICT;
