-- AttestGuard schema 3: scoring reads how many keys of a user on a device were superseded (key.superseded_keys).
CREATE INDEX app_keys_per_device ON app_keys (app_id, user_id, device_id, status);
