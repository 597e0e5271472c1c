package sqlite

import (
	"context"
	"fmt"
)

// Counts is how much the index holds, for status.
type Counts struct {
	Notes, Concepts, Mentions, Links, Relations int
}

// Counts counts the index's notes, concepts, mentions, links and relations
// in one snapshot.
func (db *DB) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := db.rd().QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM notes), (SELECT COUNT(*) FROM concepts),
		(SELECT COUNT(*) FROM mentions), (SELECT COALESCE(SUM(count), 0) FROM links),
		(SELECT COUNT(*) FROM relations)`).Scan(&c.Notes, &c.Concepts, &c.Mentions, &c.Links, &c.Relations)
	if err != nil {
		return Counts{}, fmt.Errorf("count index: %w", err)
	}
	return c, nil
}

// ConceptIDUsed reports whether a concept has the id.
func (ci *ConceptIndex) ConceptIDUsed(ctx context.Context, id string) (bool, error) {
	var n int
	if err := ci.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM concepts WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("check concept id %s: %w", id, err)
	}
	return n > 0, nil
}

// NotesLinking returns the paths of the notes that link any key of the
// concept, sorted.
func (ci *ConceptIndex) NotesLinking(ctx context.Context, conceptID string) ([]string, error) {
	paths, err := queryStrings(ctx, ci.db.rd(), `SELECT DISTINCT n.path FROM links l
		JOIN notes n ON n.id = l.note_id JOIN concept_keys k ON k.key = l.key
		WHERE k.concept_id = ? ORDER BY n.path`, conceptID)
	if err != nil {
		return nil, fmt.Errorf("find links to %s: %w", conceptID, err)
	}
	return paths, nil
}
