-- Cached embeddings, content-addressed: one vector per (model, text hash).
-- They survive reindex and renames, and a changed text (a concept's names
-- and description, a note chunk) is the only thing ever re-embedded. Vectors
-- of different models never meet: every lookup names the model.
-- A rowid table: rows carry 1.5 KB blobs, which WITHOUT ROWID tables store badly.
CREATE TABLE embeddings (
	id        INTEGER PRIMARY KEY,
	model     TEXT    NOT NULL,
	text_hash TEXT    NOT NULL,
	dim       INTEGER NOT NULL,
	vec       BLOB    NOT NULL,   -- little-endian float32 × dim, L2-normalized
	UNIQUE (model, text_hash)
) STRICT;
