-- AttestGuard schema 30: run-time lists, which rules read by name like list files but which analysts change through
-- the API and the CLI without a deployment: the lists (a revision each process polls), their entries (each with an
-- optional expiry and a note) and a log of every change, kept after a list is deleted.
CREATE TABLE managed_lists (
    name         TEXT    PRIMARY KEY,
    kind         TEXT    NOT NULL CHECK (kind IN ('string', 'cidr')),
    description  TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    created_by   TEXT    NOT NULL,
    updated_at   INTEGER NOT NULL,
    updated_by   TEXT    NOT NULL,
    revision     INTEGER NOT NULL CHECK (revision > 0),
    entry_count  INTEGER NOT NULL CHECK (entry_count >= 0)
);
CREATE TABLE managed_list_entries (
    list_name    TEXT    NOT NULL REFERENCES managed_lists (name) ON DELETE CASCADE,
    value        TEXT    NOT NULL,
    expires_at   INTEGER,
    note         TEXT    NOT NULL,
    added_at     INTEGER NOT NULL,
    added_by     TEXT    NOT NULL,
    PRIMARY KEY (list_name, value)
);
CREATE TABLE managed_list_changes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    list_name    TEXT    NOT NULL,
    at           INTEGER NOT NULL,
    actor        TEXT    NOT NULL,
    action       TEXT    NOT NULL,
    added        INTEGER NOT NULL,
    removed      INTEGER NOT NULL,
    entries      INTEGER NOT NULL,
    "values"     TEXT    NOT NULL
);
CREATE INDEX managed_list_changes_per_list ON managed_list_changes (list_name, id);
