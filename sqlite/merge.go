package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// FilesRelatingTo returns the vault paths of the files that declare a
// relation to any of refs ("concept:<key>" or "note:<path>"), in path order.
func (db *DB) FilesRelatingTo(ctx context.Context, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	args := make([]any, len(refs))
	for i, r := range refs {
		args[i] = r
	}
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT n.path FROM relations r JOIN notes n ON n.id = r.note_id
		WHERE r.to_ref IN (?`+strings.Repeat(",?", len(refs)-1)+`) ORDER BY n.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("files relating to %v: %w", refs, err)
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("files relating to %v: %w", refs, err)
		}
		paths = append(paths, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("files relating to %v: %w", refs, err)
	}
	return paths, nil
}

// NotesLinkingKeys returns the paths of the notes that link any of keys,
// in path order.
func (db *DB) NotesLinkingKeys(ctx context.Context, keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT n.path FROM links l JOIN notes n ON n.id = l.note_id
		WHERE l.key IN (?`+strings.Repeat(",?", len(keys)-1)+`) ORDER BY n.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("notes linking %v: %w", keys, err)
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("notes linking %v: %w", keys, err)
		}
		paths = append(paths, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes linking %v: %w", keys, err)
	}
	return paths, nil
}

// PageOfKey returns the vault path of the page of the concept that key
// names; "" when the key names no concept or the concept has no page.
func (db *DB) PageOfKey(ctx context.Context, key string) (string, error) {
	var path string
	err := db.read.QueryRowContext(ctx, `SELECT n.path FROM concept_keys k JOIN concepts c ON c.id = k.concept_id
		JOIN notes n ON n.id = c.page_note_id WHERE k.key = ?`, key).Scan(&path)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("page of %q: %w", key, err)
	}
	return path, nil
}
