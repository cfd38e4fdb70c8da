-- AttestGuard schema 26: the build a key was attested from, as iOS 27's authenticator-extension map names it:
-- validation_category is Apple's number for how the app was distributed (4 App Store, 2 TestFlight, 3 development,
-- ...; kept as the number, so a category a later build learns to name reads correctly), bundle_version its
-- CFBundleVersion. Both NULL for keys attested before iOS 27 or before this schema. Added without a default, so no
-- row is rewritten.
ALTER TABLE app_keys ADD COLUMN validation_category bigint;
ALTER TABLE app_keys ADD COLUMN bundle_version text;
