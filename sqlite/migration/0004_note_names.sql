-- The names a note answers to as a title-match concept page candidate: the
-- keys of its title and aliases. Lets a write tell cheaply whether linking
-- a key could turn some note into a page (then the registry is recomputed
-- in full) or only touches the concepts of the keys it links.
CREATE TABLE note_names (
	note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	key     TEXT    NOT NULL,
	PRIMARY KEY (note_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX note_names_key ON note_names(key);

-- Notes indexed before this table existed have no names: clear what is
-- derived from files so the next sync rebuilds it. Access statistics and
-- cached embeddings are kept.
DELETE FROM concept_keys;
DELETE FROM concepts;
DELETE FROM relations;
DELETE FROM links;
DELETE FROM pages;
DELETE FROM notes_fts;
DELETE FROM notes;
