-- AttestGuard schema 12: DeviceCheck bits belong to one app (scope = the app id) unless the operator opts apps
-- into sharing them (scope = 'shared:' || team id). Rows written before this schema were per team: they become
-- 'team:' || team id, read only by apps that share, and are purged 30 days after they were observed (they are a
-- cache of Apple's bits, refreshed with the next device token).
ALTER TABLE devicecheck_bits RENAME COLUMN team_id TO scope;
UPDATE devicecheck_bits SET scope = 'team:' || scope;
