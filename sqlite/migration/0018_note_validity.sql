-- Memory over time (docs/time.md). When a note holds: its front matter
-- valid_from and valid_until (NULL: unbounded; a valid_until date is stored
-- as the last nanosecond of its day). Only notes with a bound have a row.
CREATE TABLE note_validity (
	note_id        INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
	valid_from_ns  INTEGER,
	valid_until_ns INTEGER
) STRICT;
-- What a note supersedes is a relation of type 'supersedes' (its targets in
-- relations.to_ref); search_notes and build_context read all of them at
-- each change of the vault, which this index keeps to the few rows there are.
CREATE INDEX relations_supersedes ON relations(to_ref) WHERE type = 'supersedes';
-- Notes indexed before were read without their validity, and a supersedes
-- property of plain titles or paths was no relation: forget every note's
-- file state so the next sync reads every note again.
UPDATE notes SET mtime_ns = 0, verified_ns = 0, hash = '';
