-- search_notes (package search). The full-text table is rebuilt with:
--   * English stemming (porter over unicode61), so "compress" finds
--     "compression" (measured on the Go package docs: docs/search.md);
--   * a third column, cjk, holding the overlapping character bigrams of
--     every run of Chinese, Japanese or Korean text in the title and body
--     (search.CJKBigrams, registered as the SQL function noema_cjk), so text
--     written without spaces is found by any substring of 2+ characters.
-- Existing rows are copied over (the body lives only in this table), so no
-- file has to be read again.
CREATE VIRTUAL TABLE notes_fts_v8 USING fts5(
	title, body, cjk,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO notes_fts_v8 (rowid, title, body, cjk)
	SELECT rowid, title, body, noema_cjk(title, body) FROM notes_fts;
DROP TABLE notes_fts;
ALTER TABLE notes_fts_v8 RENAME TO notes_fts;

-- A counter that moves whenever any note's chunks change (re-chunked,
-- re-embedded by another model, or deleted with their note), so the search
-- service's in-memory chunk vectors are refreshed only when needed.
CREATE TABLE search_state (
	id             INTEGER PRIMARY KEY CHECK (id = 1),
	chunks_version INTEGER NOT NULL
) STRICT;
INSERT INTO search_state (id, chunks_version) VALUES (1, 0);
CREATE TRIGGER search_chunks_ins AFTER INSERT ON note_chunk_state BEGIN
	UPDATE search_state SET chunks_version = chunks_version + 1 WHERE id = 1;
END;
CREATE TRIGGER search_chunks_upd AFTER UPDATE ON note_chunk_state BEGIN
	UPDATE search_state SET chunks_version = chunks_version + 1 WHERE id = 1;
END;
CREATE TRIGGER search_chunks_del AFTER DELETE ON note_chunk_state BEGIN
	UPDATE search_state SET chunks_version = chunks_version + 1 WHERE id = 1;
END;
