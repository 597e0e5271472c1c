-- The embedder whose vectors a note's chunks last received, so a refresh
-- finds the notes to (re-)embed with a plain join instead of probing the
-- embedding cache for every chunk. '' (older rows) means unknown: re-check.
ALTER TABLE note_chunk_state ADD COLUMN model TEXT NOT NULL DEFAULT '';
