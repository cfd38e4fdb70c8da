-- AttestGuard schema 35: which process sweeps each UTC day's keys in `serve`'s continuous refresher, so that a fleet
-- of servers sweeps once a day, not once a process. A process claims the day before it sweeps and renews the claim
-- while it runs; another takes the day over only when the claim went unrenewed past the stale bound (its holder died
-- or stopped), and a finished day is never swept again by `serve`.
CREATE TABLE key_sweep_days (
    day         text        PRIMARY KEY,
    owner       text        NOT NULL,
    claimed_at  timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    finished_at timestamptz
);
