package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/noema-mem/noema"
)

// NoteConcepts returns the concepts the note at path links, by label,
// each with how many notes link it counted up to 2 (noema.NoteConcept).
func (ci *ConceptIndex) NoteConcepts(ctx context.Context, path string) ([]noema.NoteConcept, error) {
	var out []noema.NoteConcept
	err := eachRow(ctx, ci.db.rdKept(), `SELECT c.id, c.label, c.page_note_id IS NOT NULL,
			(SELECT COUNT(*) FROM (SELECT DISTINCT l2.note_id FROM concept_keys k2 JOIN links l2 ON l2.key = k2.key
				WHERE k2.concept_id = c.id LIMIT 2))
		FROM notes n JOIN links l ON l.note_id = n.id JOIN concept_keys k ON k.key = l.key JOIN concepts c ON c.id = k.concept_id
		WHERE n.path = ? GROUP BY c.id ORDER BY c.label, c.id`, []any{path}, func(rows *sql.Rows) error {
		var c noema.NoteConcept
		if err := rows.Scan(&c.ID, &c.Label, &c.HasPage, &c.Notes); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("concepts linked by %s: %w", path, err)
	}
	return out, nil
}
