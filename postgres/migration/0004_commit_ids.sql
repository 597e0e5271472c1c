-- Commit ids: a client whose connection breaks after it sent a write can tell
-- whether the write was made. Each call of noema_commit names its commit
-- (p_commit_id, random) and records it here with the vault's sequence number
-- after it, in its own transaction; the client, once the backend that ran
-- the call is gone or idle (it finishes a statement its client no longer
-- hears), looks the id up: there, the write was made; not there, it never
-- will be. Ids are kept a day (pruned now and then by noema_commit).
CREATE TABLE noema_commits (
    vault text        NOT NULL REFERENCES noema_vaults (vault) ON DELETE CASCADE,
    id    text        NOT NULL,
    seq   bigint      NOT NULL,
    at    timestamptz NOT NULL,
    PRIMARY KEY (vault, id)
);
CREATE INDEX noema_commits_at ON noema_commits (vault, at);

-- noema_commit as in 0003, with the commit id.
DROP FUNCTION noema_commit(text, text[], text[], bytea[], text[], text, timestamptz, text, text, timestamptz, bigint);
CREATE FUNCTION noema_commit(
    p_vault text, p_paths text[], p_befores text[], p_datas bytea[], p_afters text[],
    p_move_from text, p_now timestamptz,
    p_op_id text, p_op_tool text, p_op_oldest timestamptz, p_op_max_bytes bigint,
    p_commit_id text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n integer := cardinality(p_paths);
    base bigint;
    bad_path text;
    bad_have text;
    moved bytea;
BEGIN
    UPDATE noema_vaults SET seq = seq + n WHERE vault = p_vault RETURNING seq - n INTO base;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'noema: no vault %', p_vault USING ERRCODE = 'NM002';
    END IF;
    PERFORM 1 FROM noema_files WHERE vault = p_vault AND path = ANY (p_paths)
        ORDER BY path COLLATE "C" FOR UPDATE;
    SELECT t.path, COALESCE(f.checksum, 'absent') INTO bad_path, bad_have
        FROM unnest(p_paths, p_befores) WITH ORDINALITY AS t(path, before_sum, ord)
        LEFT JOIN noema_files f ON f.vault = p_vault AND f.path = t.path
        WHERE COALESCE(f.checksum, 'absent') <> t.before_sum
        ORDER BY t.ord LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'noema: % changed since the change was planned', bad_path
            USING ERRCODE = 'NM001', DETAIL = bad_path, HINT = bad_have;
    END IF;
    IF p_move_from IS NOT NULL THEN
        SELECT data INTO moved FROM noema_files WHERE vault = p_vault AND path = p_move_from;
    END IF;
    IF p_op_id IS NOT NULL THEN
        WITH files AS (
            SELECT t.ord, t.path, t.after_sum, f.data, f.checksum
            FROM unnest(p_paths, p_afters) WITH ORDINALITY AS t(path, after_sum, ord)
            LEFT JOIN noema_files f ON f.vault = p_vault AND f.path = t.path
        ), op AS (
            INSERT INTO noema_operations (vault, id, tool, at, file_count, bytes)
            SELECT p_vault, p_op_id, p_op_tool, p_now, count(*),
                COALESCE(sum(octet_length(path) + COALESCE(octet_length(data), 0) + 140), 0) FROM files
        )
        INSERT INTO noema_operation_files (vault, id, ord, path, before_sum, data, after_sum)
        SELECT p_vault, p_op_id, ord, path, CASE WHEN data IS NULL THEN 'absent' ELSE checksum END, data, after_sum
        FROM files;
        DELETE FROM noema_operations WHERE vault = p_vault AND id <> p_op_id AND (at < p_op_oldest OR id IN (
            SELECT id FROM (SELECT id, sum(bytes) OVER (ORDER BY id DESC) AS total FROM noema_operations WHERE vault = p_vault) t
            WHERE total > p_op_max_bytes));
    END IF;
    INSERT INTO noema_files AS f (vault, path, data, checksum, version, modified, seq)
    SELECT p_vault, t.path,
        CASE WHEN t.after_sum = 'absent' THEN NULL ELSE COALESCE(t.data, moved) END,
        t.after_sum, 1, p_now, base + t.ord
    FROM unnest(p_paths, p_datas, p_afters) WITH ORDINALITY AS t(path, data, after_sum, ord)
    ON CONFLICT (vault, path) DO UPDATE SET data = EXCLUDED.data, checksum = EXCLUDED.checksum,
        version = f.version + 1, modified = EXCLUDED.modified, seq = EXCLUDED.seq;
    INSERT INTO noema_commits (vault, id, seq, at) VALUES (p_vault, p_commit_id, base + n, p_now);
    IF random() < 1.0 / 256 THEN
        DELETE FROM noema_commits WHERE vault = p_vault AND at < p_now - interval '1 day';
    END IF;
    PERFORM pg_notify('noema_changes', p_vault || E'\t' || (base + n));
    RETURN base;
END
$$;
