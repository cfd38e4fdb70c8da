-- AttestGuard schema 32: distinct counts (`distinct.users.device.24h`: the users seen with one device in a day). One
-- row per series (an app, a subject counted per, such as one device, and what is counted per it, such as users: a
-- 16-byte id the server derives) and member (the counted subject's 16-byte keyed hash), with the minute it was last
-- seen. A count reads the members of one series seen since the window's start from the second index alone (it holds
-- the member too, which the count compares with the members the reader leaves out), and stops at a bound; a purge
-- sweeps the series ids a slice at a time by the same index. Rows are written behind the verdict,
-- at most once a minute per member and process, in key order so that concurrent writers never deadlock.
CREATE TABLE distinct_sightings (
    series    blob   NOT NULL,
    member    blob   NOT NULL,
    last_seen integer NOT NULL,
    PRIMARY KEY (series, member)
);
CREATE INDEX distinct_sightings_recent ON distinct_sightings (series, last_seen, member);
