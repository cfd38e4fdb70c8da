-- AttestGuard schema 30: run-time lists, which rules read by name like list files but which analysts change through
-- the API and the CLI without a deployment: the lists (a revision each process polls), their entries (each with an
-- optional expiry and a note) and a log of every change, kept after a list is deleted.
CREATE TABLE managed_lists (
    name         text        PRIMARY KEY,
    kind         text        NOT NULL CHECK (kind IN ('string', 'cidr')),
    description  text        NOT NULL,
    created_at   timestamptz NOT NULL,
    created_by   text        NOT NULL,
    updated_at   timestamptz NOT NULL,
    updated_by   text        NOT NULL,
    revision     bigint      NOT NULL CHECK (revision > 0),
    entry_count  integer     NOT NULL CHECK (entry_count >= 0)
);
CREATE TABLE managed_list_entries (
    list_name    text        NOT NULL REFERENCES managed_lists (name) ON DELETE CASCADE,
    value        text        NOT NULL,
    expires_at   timestamptz,
    note         text        NOT NULL,
    added_at     timestamptz NOT NULL,
    added_by     text        NOT NULL,
    PRIMARY KEY (list_name, value)
);
CREATE TABLE managed_list_changes (
    id           bigserial   PRIMARY KEY,
    list_name    text        NOT NULL,
    at           timestamptz NOT NULL,
    actor        text        NOT NULL,
    action       text        NOT NULL,
    added        integer     NOT NULL,
    removed      integer     NOT NULL,
    entries      integer     NOT NULL,
    "values"     text[]      NOT NULL
);
CREATE INDEX managed_list_changes_per_list ON managed_list_changes (list_name, id);
