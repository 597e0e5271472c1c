-- The key (vault.Key) of each note's file name without .md, indexed, so a
-- write finds the notes [[its title]] would also open (Obsidian resolves
-- links by file name, in any folder) with a lookup instead of a pass over
-- every path. Rows indexed before have '' until they are read again: forget
-- every note's file state so the next sync reads every note (NotesNamed
-- scans the paths while any row has no key).
ALTER TABLE notes ADD COLUMN file_key TEXT NOT NULL DEFAULT '';
CREATE INDEX notes_file_key ON notes(file_key);
UPDATE notes SET mtime_ns = 0, verified_ns = 0, hash = '';
