-- Registry derivation groups every link by (key, target): a covering index
-- in that order lets SQLite stream the groups instead of sorting 80,000 rows,
-- and still serves lookups by key.
DROP INDEX links_key;
CREATE INDEX links_key_target ON links(key, target, note_id, count);
