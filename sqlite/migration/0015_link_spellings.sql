-- Each key's spellings with their link counts summed over every note, so
-- that a write re-derives a linked concept's label from a few rows instead
-- of re-summing every link of its key (75,000 rows for a hub concept of a
-- 100,000-note vault). Change.Apply adds the written notes' differences;
-- RecomputeConcepts rewrites it from the links.
CREATE TABLE link_spellings (
	key    TEXT    NOT NULL,
	target TEXT    NOT NULL,
	count  INTEGER NOT NULL,
	PRIMARY KEY (key, target)
) STRICT, WITHOUT ROWID;
INSERT INTO link_spellings (key, target, count)
	SELECT key, target, SUM(count) FROM links GROUP BY key, target;
