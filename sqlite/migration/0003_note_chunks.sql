-- Notes are embedded as heading-aware chunks. A chunk's vector lives in the
-- embeddings cache under its text hash, so a note edit re-embeds only the
-- chunks whose text changed. chunked_hash records which version of the note
-- the chunks were cut from.
CREATE TABLE note_chunks (
	note_id   INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	idx       INTEGER NOT NULL,
	heading   TEXT    NOT NULL,   -- the heading path, "H1 > H2", "" before the first heading
	start     INTEGER NOT NULL,   -- byte range in the note body
	end       INTEGER NOT NULL,
	text_hash TEXT    NOT NULL,
	PRIMARY KEY (note_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE note_chunk_state (
	note_id      INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
	chunked_hash TEXT NOT NULL
) STRICT;
