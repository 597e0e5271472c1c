-- Cached embeddings, content-addressed: one vector per (model, text hash).
-- They survive reindex and renames, and a changed text (a concept's names
-- and description, a note chunk) is the only thing ever re-embedded. Vectors
-- of different models never meet: every lookup names the model.
CREATE TABLE embeddings (
	model     TEXT    NOT NULL,
	text_hash TEXT    NOT NULL,
	dim       INTEGER NOT NULL,
	vec       BLOB    NOT NULL,   -- little-endian float32 × dim, L2-normalized
	PRIMARY KEY (model, text_hash)
) STRICT, WITHOUT ROWID;
