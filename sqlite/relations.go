package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/noema-mem/noema"
)

// RelationIndex is the relation index (port [noema.RelationIndex]) over a
// DB: the indexed relations package relations reads.
type RelationIndex struct{ db *DB }

var _ noema.RelationIndex = (*RelationIndex)(nil)

// Relations returns the relation index over db.
func (db *DB) Relations() *RelationIndex { return &RelationIndex{db: db} }

// Relation returns the indexed relation with the id and the vault path of
// the file that declares it. Its From is the concept whose page declares
// it, else the declaring note's URI; its To is the concept owning the
// referenced key, the referenced note's URI, or "concept:<key>" when the
// key names no concept. No relation with the id is a noema.ENOTFOUND
// error.
func (ri *RelationIndex) Relation(ctx context.Context, id string) (*noema.Relation, string, error) {
	var r noema.Relation
	var path, title, toRef, meta string
	var pageConcept, pageLabel, target, targetLabel sql.NullString
	var weight sql.NullFloat64
	err := ri.db.rd().QueryRowContext(ctx, `SELECT r.id, r.type, r.to_ref, r.weight, r.metadata, n.path, n.title, c.id, c.label, t.id, t.label
		FROM relations r JOIN notes n ON n.id = r.note_id
		LEFT JOIN concepts c ON c.page_note_id = n.id
		LEFT JOIN concepts t ON substr(r.to_ref, 1, 5) <> 'note:' AND t.id = (SELECT k.concept_id FROM concept_keys k
			WHERE k.key = CASE WHEN substr(r.to_ref, 1, 8) = 'concept:' THEN substr(r.to_ref, 9) ELSE r.to_ref END)
		WHERE r.id = ?`, id).
		Scan(&r.ID, &r.Type, &toRef, &weight, &meta, &path, &title, &pageConcept, &pageLabel, &target, &targetLabel)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", noema.Errorf(noema.ENOTFOUND, "no relation %q", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("get relation %s: %w", id, err)
	}
	r.From, r.FromLabel = noema.NoteURI(path), title
	if pageConcept.Valid {
		r.From, r.FromLabel = pageConcept.String, pageLabel.String
	}
	switch p, isNote := strings.CutPrefix(toRef, "note:"); {
	case isNote:
		r.To = noema.NoteURI(p)
		err := ri.db.rd().QueryRowContext(ctx, `SELECT title FROM notes WHERE path = ?`, p).Scan(&r.ToLabel)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			r.Dangling = true
		case err != nil:
			return nil, "", fmt.Errorf("get relation %s: %w", id, err)
		}
	case target.Valid:
		r.To, r.ToLabel = target.String, targetLabel.String
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
