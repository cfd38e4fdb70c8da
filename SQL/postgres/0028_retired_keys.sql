-- AttestGuard schema 28: the keys retired (revoked or superseded), in the order they were, for the set every process
-- reads so that a retired key's session tokens stop passing (RetiredKeyStore). Partial: active keys, whose rows the
-- assertion path updates, are not in it.
CREATE INDEX app_keys_retired ON app_keys (status_changed_at, app_id, key_id) WHERE status <> 'active';
