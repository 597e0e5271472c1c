-- The state of every note (path, id, size, mtime, ctime, inode, read time,
-- hash) as one record, saved by a sync at a change-log position (pos, see
-- 0016_graph_log.sql) under a schema version: a sync reads it and the
-- notes logged since instead of every note row (issue 21: a third of a
-- no-op sync at 100,000 notes). See DB.NoteStates and SaveNoteStates.
CREATE TABLE note_state_snapshot (
	id             INTEGER PRIMARY KEY CHECK (id = 1),
	pos            INTEGER NOT NULL,
	schema_version INTEGER NOT NULL,
	data           BLOB    NOT NULL
) STRICT;
