package sqlite

import (
	"context"
	"fmt"
)

// NoteConcept is a concept a note links, with what else holds it.
type NoteConcept struct {
	ID, Label string
	// Notes is how many notes link the concept, this one included.
	Notes int
	// HasPage is whether the concept has a page.
	HasPage bool
}

// NoteConcepts returns the concepts the note at path links, by label.
func (db *DB) NoteConcepts(ctx context.Context, path string) ([]NoteConcept, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT c.id, c.label, c.page_note_id IS NOT NULL,
			(SELECT COUNT(DISTINCT l2.note_id) FROM concept_keys k2 JOIN links l2 ON l2.key = k2.key WHERE k2.concept_id = c.id)
		FROM notes n JOIN links l ON l.note_id = n.id JOIN concept_keys k ON k.key = l.key JOIN concepts c ON c.id = k.concept_id
		WHERE n.path = ? GROUP BY c.id ORDER BY c.label, c.id`, path)
	if err != nil {
		return nil, fmt.Errorf("concepts linked by %s: %w", path, err)
	}
	defer rows.Close()
	var out []NoteConcept
	for rows.Next() {
		var c NoteConcept
		if err := rows.Scan(&c.ID, &c.Label, &c.HasPage, &c.Notes); err != nil {
			return nil, fmt.Errorf("concepts linked by %s: %w", path, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("concepts linked by %s: %w", path, err)
	}
	return out, nil
}
