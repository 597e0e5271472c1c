package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
)

// MentionIndex is the mention index (port [noema.MentionIndex]) over a
// DB: the reads of build_context (package recall), the mention graph
// (mentiongraph.go), the notes' text and a concept's relations. Each
// query reads the read pool; lists of ids travel as one JSON array
// argument expanded with json_each, so no statement text depends on the
// number of ids.
type MentionIndex struct{ db *DB }

var _ noema.MentionIndex = (*MentionIndex)(nil)

// Mentions returns the mention index over db.
func (db *DB) Mentions() *MentionIndex { return &MentionIndex{db: db} }

// intsArg encodes row ids as one query argument for json_each.
func intsArg(ids []int64) string {
	var b strings.Builder
	b.Grow(len(ids)*6 + 2)
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// bodiesByID[n] reads the bodies of n notes by id, one seek each: a
// UNION ALL of n point queries (n up to a page and a half).
var bodiesByID = func() (q [16]string) {
	for n := 1; n < len(q); n++ {
		q[n] = strings.TrimSuffix(strings.Repeat(`SELECT id, c1 FROM notes_fts_content WHERE id = ? UNION ALL `, n), ` UNION ALL `)
	}
	return q
}()

// noteBodies returns the indexed text (the Markdown after the front
// matter, as it was indexed) of the notes with the row ids, by row id;
// notes without indexed text are absent.
//
// The bodies are read from the FTS5 table's content table (notes_fts's
// body is its column c1): a B-tree seek per note, which through the
// virtual table took twice as long.
func (db *DB) noteBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	if len(ids) == 0 {
		return map[int64]string{}, nil
	}
	var out map[int64]string
	var err error
	if len(ids) < len(bodiesByID) {
		// A page's: one seek an id (json_each's IN builds a temporary
		// table first, a seventh of the statement's time for ten).
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		out, err = queryMap[int64, string](ctx, db.rdKept(), bodiesByID[len(ids)], args...)
	} else {
		out, err = queryMap[int64, string](ctx, db.rdKept(), `SELECT id, c1 FROM notes_fts_content WHERE id IN (SELECT value FROM json_each(?))`, intsArg(ids))
	}
	if err != nil {
		return nil, fmt.Errorf("read note bodies: %w", err)
	}
	return out, nil
}

// NoteBodies returns the indexed text of the notes with the row ids, by
// row id: the Markdown after the front matter, as it was indexed; notes
// without indexed text are absent.
func (m *MentionIndex) NoteBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	return m.db.noteBodies(ctx, ids)
}

// ConceptRelations returns the typed relations at the concept with the
// id: those its page declares and those pointing at it through any of its
// keys, each once, in no particular order. Edges are resolved as
// [noema.GraphReader.Relations] resolves them (a dangling target is
// "concept:<key>" or a missing note's URI).
func (m *MentionIndex) ConceptRelations(ctx context.Context, id string) ([]noema.GraphEdge, error) {
	var out []noema.GraphEdge
	err := m.db.Graph().ReadGraph(ctx, func(r noema.GraphReader) error {
		var err error
		out, err = r.Relations(ctx, nil, []string{id}, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
