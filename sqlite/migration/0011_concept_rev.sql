-- A change counter of concept names, so that concepts' in-memory name index
-- (find_concepts' matcher, the duplicate index) takes in what a write changed
-- instead of reloading every concept: every concept inserted, or whose label
-- or aliases change, gets the next rev; a deletion counts in deleted (then
-- the index is rebuilt).
CREATE TABLE concept_rev (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	rev     INTEGER NOT NULL,
	deleted INTEGER NOT NULL
) STRICT;
INSERT INTO concept_rev (id, rev, deleted) VALUES (1, 0, 0);
ALTER TABLE concepts ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
CREATE INDEX concepts_rev ON concepts(rev);
CREATE TRIGGER concept_rev_ins AFTER INSERT ON concepts BEGIN
	UPDATE concept_rev SET rev = rev + 1 WHERE id = 1;
	UPDATE concepts SET rev = (SELECT rev FROM concept_rev WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER concept_rev_upd AFTER UPDATE OF label, aliases ON concepts
	WHEN OLD.label IS NOT NEW.label OR OLD.aliases IS NOT NEW.aliases BEGIN
	UPDATE concept_rev SET rev = rev + 1 WHERE id = 1;
	UPDATE concepts SET rev = (SELECT rev FROM concept_rev WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER concept_rev_del AFTER DELETE ON concepts BEGIN
	UPDATE concept_rev SET deleted = deleted + 1 WHERE id = 1;
END;
