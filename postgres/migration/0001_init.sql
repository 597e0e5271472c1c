-- noema's store of record on PostgreSQL (DESIGN.md §9). The vault is the
-- leading key of every table, so one database holds several vaults and a
-- distributed PostgreSQL can shard by it.

-- One row per vault: its name and the last change sequence number handed out.
CREATE TABLE noema_vaults (
    vault      text PRIMARY KEY CHECK (vault <> ''),
    seq        bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The note files of record. A deleted file keeps its row as a tombstone
-- (data NULL, checksum 'absent') so the change feed can say it went; seq is the
-- vault sequence number of the file's last change, unique per vault, so
-- "everything since N" is a range read of files_seq.
CREATE TABLE noema_files (
    vault    text   NOT NULL REFERENCES noema_vaults (vault) ON DELETE CASCADE,
    path     text   NOT NULL CHECK (path <> ''),
    data     bytea,
    checksum text   NOT NULL,
    version  bigint NOT NULL,
    modified timestamptz NOT NULL,
    seq      bigint NOT NULL,
    PRIMARY KEY (vault, path),
    CHECK ((data IS NULL) = (checksum = 'absent'))
);
CREATE UNIQUE INDEX noema_files_seq ON noema_files (vault, seq);

-- Explicit reads of notes, which feed decay, shared by every server of the
-- vault: id orders them for the servers reading them back, server says
-- which process recorded one (it skips its own).
CREATE TABLE noema_access (
    vault  text        NOT NULL REFERENCES noema_vaults (vault) ON DELETE CASCADE,
    id     bigserial,
    path   text        NOT NULL,
    at     timestamptz NOT NULL,
    server text        NOT NULL,
    PRIMARY KEY (vault, id)
);

-- The operation log of multi-file changes (DESIGN.md §10): one row per
-- operation, its record (files with before-images and after-checksums) as
-- JSON.
CREATE TABLE noema_operations (
    vault  text        NOT NULL REFERENCES noema_vaults (vault) ON DELETE CASCADE,
    id     text        NOT NULL,
    tool   text        NOT NULL,
    at     timestamptz NOT NULL,
    record jsonb       NOT NULL,
    PRIMARY KEY (vault, id)
);
CREATE INDEX noema_operations_at ON noema_operations (vault, at);
