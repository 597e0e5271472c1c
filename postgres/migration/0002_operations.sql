-- The operation log, made usable (issue 22, undo on teams). 0001's
-- noema_operations held an operation as one JSON record, which no noema ever
-- wrote; it is replaced (empty) by two tables. An operation's row says what a
-- listing shows; its files are rows of their own, each with the file's
-- before-image as bytes (NULL: the operation created the file), written in
-- the transaction of the change itself from the rows the change replaces.
DROP TABLE noema_operations;

CREATE TABLE noema_operations (
    vault      text        NOT NULL REFERENCES noema_vaults (vault) ON DELETE CASCADE,
    id         text        NOT NULL,
    tool       text        NOT NULL,
    at         timestamptz NOT NULL,
    file_count integer     NOT NULL,
    -- what the entry holds (paths and before-images), for operations.max_bytes
    bytes      bigint      NOT NULL,
    PRIMARY KEY (vault, id)
);
CREATE INDEX noema_operations_at ON noema_operations (vault, at);

CREATE TABLE noema_operation_files (
    vault      text    NOT NULL,
    id         text    NOT NULL,
    ord        integer NOT NULL,
    path       text    NOT NULL,
    before_sum text    NOT NULL,
    data       bytea,
    after_sum  text    NOT NULL,
    PRIMARY KEY (vault, id, ord),
    FOREIGN KEY (vault, id) REFERENCES noema_operations (vault, id) ON DELETE CASCADE,
    CHECK ((data IS NULL) = (before_sum = 'absent'))
);
