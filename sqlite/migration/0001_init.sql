-- The index is a cache of the vault: every table but `access` and
-- `embeddings`-like caches can be rebuilt from the Markdown files.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE notes (
	id         INTEGER PRIMARY KEY,
	path       TEXT    NOT NULL UNIQUE,   -- vault-relative, forward slashes, with .md
	title      TEXT    NOT NULL,
	tags       TEXT    NOT NULL DEFAULT '[]',  -- JSON array
	aliases    TEXT    NOT NULL DEFAULT '[]',  -- JSON array
	size       INTEGER NOT NULL,
	mtime_ns   INTEGER NOT NULL,
	hash       TEXT    NOT NULL,
	created_ns INTEGER NOT NULL,          -- front matter `created`, else file mtime
	modified_ns INTEGER NOT NULL          -- front matter `modified`, else file mtime
) STRICT;
CREATE INDEX notes_modified ON notes(modified_ns);
CREATE INDEX notes_hash ON notes(hash);

-- Raw WikiLinks per note, grouped by key and spelling. Mentions are derived
-- from these by resolving the key through concept_keys.
CREATE TABLE links (
	note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
	key     TEXT    NOT NULL,
	target  TEXT    NOT NULL,             -- the spelling as written
	count   INTEGER NOT NULL,
	PRIMARY KEY (note_id, key, target)
) STRICT, WITHOUT ROWID;
CREATE INDEX links_key ON links(key);

-- What each note would contribute as a concept page. explicit = 1 for
-- notes under concepts/ or with `concept:` in front matter; explicit = 0 rows
-- are candidates that become pages when their title or an alias is linked.
CREATE TABLE pages (
	note_id     INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
	explicit    INTEGER NOT NULL,
	concept_id  TEXT    NOT NULL DEFAULT '',   -- front matter `id`, if any
	label       TEXT    NOT NULL,
	aliases     TEXT    NOT NULL DEFAULT '[]',
	description TEXT    NOT NULL DEFAULT '',
	metadata    TEXT    NOT NULL DEFAULT '{}',
	created_ns  INTEGER NOT NULL DEFAULT 0,    -- front matter only; 0 = absent
	updated_ns  INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE concepts (
	id          TEXT    PRIMARY KEY,
	key         TEXT    NOT NULL UNIQUE,
	label       TEXT    NOT NULL,
	aliases     TEXT    NOT NULL DEFAULT '[]',  -- JSON array of alias labels
	description TEXT    NOT NULL DEFAULT '',
	metadata    TEXT    NOT NULL DEFAULT '{}',  -- canonical JSON object
	page_note_id INTEGER REFERENCES notes(id) ON DELETE SET NULL,
	created_ns  INTEGER NOT NULL DEFAULT 0,
	updated_ns  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX concepts_updated ON concepts(updated_ns);

-- Every key (label key and alias keys) that names a concept; unique.
CREATE TABLE concept_keys (
	key        TEXT PRIMARY KEY,
	concept_id TEXT NOT NULL REFERENCES concepts(id) ON DELETE CASCADE,
	text       TEXT NOT NULL,             -- the label or alias as written
	is_label   INTEGER NOT NULL
) STRICT;
CREATE INDEX concept_keys_concept ON concept_keys(concept_id);

CREATE VIEW mentions AS
	SELECT l.note_id AS note_id, k.concept_id AS concept_id, SUM(l.count) AS count
	FROM links l JOIN concept_keys k ON k.key = l.key
	GROUP BY l.note_id, k.concept_id;

-- Typed relations declared in front matter `relations:` lists.
CREATE TABLE relations (
	id        TEXT    PRIMARY KEY,
	note_id   INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE, -- the declaring file; the
	                                     -- relation starts at its concept when the file is a page, else at the note
	type      TEXT    NOT NULL,
	to_ref    TEXT    NOT NULL,          -- "concept:<key>" or "note:<path>"
	weight    REAL,
	metadata  TEXT    NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX relations_note ON relations(note_id);
CREATE INDEX relations_to ON relations(to_ref);

-- Access statistics: the only user-facing state that lives in the index
-- alone. Keyed by path and moved on rename; never cleared by reindex.
CREATE TABLE access (
	path        TEXT    PRIMARY KEY,
	accessed_ns INTEGER NOT NULL,
	count       INTEGER NOT NULL
) STRICT;

CREATE VIRTUAL TABLE notes_fts USING fts5(
	title, body,
	tokenize = 'unicode61 remove_diacritics 2'
);
