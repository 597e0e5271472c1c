package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FilesRelatingTo returns the vault paths of the files that declare a
// relation to any of refs ("concept:<key>" or "note:<path>"), in path order.
func (ni *NoteIndex) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	paths, err := ni.db.notePathsWhereIn(ctx, `relations r JOIN notes n ON n.id = r.note_id`, `r.to_ref`, refs)
	if err != nil {
		return nil, fmt.Errorf("files relating to %v: %w", refs, err)
	}
	return paths, nil
}

// NotesLinkingKeys returns the paths of the notes that link any of keys,
// in path order.
func (ni *NoteIndex) NotesLinkingKeys(ctx context.Context, keys []string) ([]string, error) {
	paths, err := ni.db.notePathsWhereIn(ctx, `links l JOIN notes n ON n.id = l.note_id`, `l.key`, keys)
	if err != nil {
		return nil, fmt.Errorf("notes linking %v: %w", keys, err)
	}
	return paths, nil
}

// notePathsWhereIn returns, in path order, the distinct paths of the notes
// (named n in the tables from) of the rows whose column is one of vals;
// nil when vals is empty.
func (db *DB) notePathsWhereIn(ctx context.Context, from, column string, vals []string) ([]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	return queryStrings(ctx, db.rd(), `SELECT DISTINCT n.path FROM `+from+`
		WHERE `+column+` IN (`+placeholders(len(vals))+`) ORDER BY n.path`, anyArgs(vals)...)
}

// PageOfKey returns the vault path of the page of the concept that key
// names; "" when the key names no concept or the concept has no page.
func (ni *NoteIndex) PageOfKey(ctx context.Context, key string) (string, error) {
	var path string
	err := ni.db.rd().QueryRowContext(ctx, `SELECT n.path FROM concept_keys k JOIN concepts c ON c.id = k.concept_id
		JOIN notes n ON n.id = c.page_note_id WHERE k.key = ?`, key).Scan(&path)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("page of %q: %w", key, err)
	}
	return path, nil
}
