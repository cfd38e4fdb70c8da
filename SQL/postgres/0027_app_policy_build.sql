-- AttestGuard schema 27: the app build policy's values as changed at run time (PUT /v1/admin/apps/{appId}/policy).
-- allowed_categories is a JSON object from environment to the validation-category names allowed there (replacing
-- the file's whole map), minimum_bundle_version a dotted version, require_authenticator_extensions the strict mode;
-- NULL keeps the configuration file's value. Added without defaults, so no row is rewritten.
ALTER TABLE app_policy_overrides ADD COLUMN allowed_categories text;
ALTER TABLE app_policy_overrides ADD COLUMN minimum_bundle_version text;
ALTER TABLE app_policy_overrides ADD COLUMN require_authenticator_extensions boolean;
