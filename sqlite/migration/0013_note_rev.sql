-- A counter of changes to the notes table (a note added, re-derived,
-- re-verified, renamed or deleted), so that GraphVersion is one row read
-- instead of a pass over every note after each write.
CREATE TABLE note_rev (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	rev INTEGER NOT NULL
) STRICT;
INSERT INTO note_rev (id, rev) VALUES (1, 0);
CREATE TRIGGER note_rev_ins AFTER INSERT ON notes BEGIN
	UPDATE note_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER note_rev_upd AFTER UPDATE ON notes BEGIN
	UPDATE note_rev SET rev = rev + 1 WHERE id = 1;
END;
CREATE TRIGGER note_rev_del AFTER DELETE ON notes BEGIN
	UPDATE note_rev SET rev = rev + 1 WHERE id = 1;
END;
