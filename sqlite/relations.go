package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/graph"
)

// Relation returns the indexed relation with the id and the vault path of
// the file that declares it. Its From is the concept whose page declares
// it, else the declaring note's URI; its To is the concept owning the
// referenced key, the referenced note's URI, or "concept:<key>" when the
// key names no concept. No relation with the id is a noema.ENOTFOUND
// error.
func (db *DB) Relation(ctx context.Context, id string) (*noema.Relation, string, error) {
	var r noema.Relation
	var path, toRef, meta string
	var pageConcept, target sql.NullString
	var weight sql.NullFloat64
	err := db.read.QueryRowContext(ctx, `SELECT r.id, r.type, r.to_ref, r.weight, r.metadata, n.path,
		(SELECT c.id FROM concepts c WHERE c.page_note_id = n.id),
		CASE WHEN substr(r.to_ref, 1, 5) <> 'note:' THEN (SELECT k.concept_id FROM concept_keys k
			WHERE k.key = CASE WHEN substr(r.to_ref, 1, 8) = 'concept:' THEN substr(r.to_ref, 9) ELSE r.to_ref END) END
		FROM relations r JOIN notes n ON n.id = r.note_id WHERE r.id = ?`, id).
		Scan(&r.ID, &r.Type, &toRef, &weight, &meta, &path, &pageConcept, &target)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", noema.Errorf(noema.ENOTFOUND, "no relation %q", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("get relation %s: %w", id, err)
	}
	r.From = graph.NoteURI(path)
	if pageConcept.Valid {
		r.From = pageConcept.String
	}
	switch p, isNote := strings.CutPrefix(toRef, "note:"); {
	case isNote:
		r.To = graph.NoteURI(p)
		var n int
		if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM notes WHERE path = ?`, p).Scan(&n); err != nil {
			return nil, "", fmt.Errorf("get relation %s: %w", id, err)
		}
		r.Dangling = n == 0
	case target.Valid:
		r.To = target.String
	default:
		r.To = toRef
		r.Dangling = true
	}
	if weight.Valid {
		w := weight.Float64
		r.Weight = &w
	}
	if meta != "" && meta != "{}" {
		if err := json.Unmarshal([]byte(meta), &r.Metadata); err != nil {
			return nil, "", fmt.Errorf("decode relation metadata: %w", err)
		}
	}
	return &r, path, nil
}

// DanglingRelation is a relation whose target does not exist.
type DanglingRelation struct {
	ID, Path, Type, ToRef string
}

// DanglingRelations returns the relations whose target names no concept
// or no note, by declaring file and id. query runs a query: DB.Query, or
// Tx.Query inside a transaction.
func DanglingRelations(query func(q string, args ...any) (*sql.Rows, error)) ([]DanglingRelation, error) {
	rows, err := query(`SELECT r.id, n.path, r.type, r.to_ref FROM relations r JOIN notes n ON n.id = r.note_id
		WHERE CASE WHEN substr(r.to_ref, 1, 5) = 'note:' THEN NOT EXISTS (SELECT 1 FROM notes t WHERE t.path = substr(r.to_ref, 6))
			ELSE NOT EXISTS (SELECT 1 FROM concept_keys k WHERE k.key = substr(r.to_ref, 9)) END
		ORDER BY n.path, r.id`)
	if err != nil {
		return nil, fmt.Errorf("find dangling relations: %w", err)
	}
	defer rows.Close()
	var out []DanglingRelation
	for rows.Next() {
		var d DanglingRelation
		if err := rows.Scan(&d.ID, &d.Path, &d.Type, &d.ToRef); err != nil {
			return nil, fmt.Errorf("find dangling relations: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find dangling relations: %w", err)
	}
	return out, nil
}
