package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema/graph"
)

// This file holds the read queries of build_context (package recall): the
// notes that mention concepts, the concepts those notes mention, the notes'
// activity and text, and a concept's relations. Each query reads the read
// pool; lists of ids travel as one JSON array argument expanded with
// json_each, so no statement text depends on the number of ids.

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

// NotesMentioning returns, for each concept among ids that notes link,
// the row ids of those notes (each once, under any key of the concept), in
// no particular order. Concepts no note links are absent.
func (db *DB) NotesMentioning(ctx context.Context, ids []string) (map[string][]int64, error) {
	out := make(map[string][]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// DISTINCT: a note linking two keys of one concept mentions it once.
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT k.concept_id, l.note_id
		FROM concept_keys k JOIN links l ON l.key = k.key
		WHERE k.concept_id IN (SELECT value FROM json_each(?))`, jsonArg(ids))
	if err != nil {
		return nil, fmt.Errorf("find notes mentioning concepts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var note int64
		if err := rows.Scan(&id, &note); err != nil {
			return nil, fmt.Errorf("find notes mentioning concepts: %w", err)
		}
		out[id] = append(out[id], note)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find notes mentioning concepts: %w", err)
	}
	return out, nil
}

// NoteMentions calls fn with each note among the row ids (unknown ones are
// skipped), in no particular order: its vault path, title, modification
// time (front matter `modified`, else the file's mtime), latest explicit
// access (zero when never read) and, when withConcepts is set, the ids of
// the concepts it links, each once (nil otherwise; links whose key names
// no concept are left out).
func (db *DB) NoteMentions(ctx context.Context, ids []int64, withConcepts bool,
	fn func(id int64, path, title string, modified, accessed time.Time, concepts []string)) error {
	if len(ids) == 0 {
		return nil
	}
	// One row per note, its concepts joined with U+001F (which no id
	// holds): a hub's notes are thousands of rows, their links tens of
	// thousands, and each row crossing into Go costs more than the join.
	concepts := `NULL`
	if withConcepts {
		concepts = `(SELECT group_concat(k.concept_id, char(31)) FROM links l JOIN concept_keys k ON k.key = l.key
			WHERE l.note_id = n.id)`
	}
	rows, err := db.read.QueryContext(ctx, `SELECT n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0), `+concepts+`
		FROM notes n LEFT JOIN access a ON a.path = n.path
		WHERE n.id IN (SELECT value FROM json_each(?))`, intsArg(ids))
	if err != nil {
		return fmt.Errorf("load notes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, mod, acc int64
		var path, title string
		var joined sql.NullString
		if err := rows.Scan(&id, &path, &title, &mod, &acc, &joined); err != nil {
			return fmt.Errorf("load notes: %w", err)
		}
		var cs []string
		if withConcepts {
			cs = []string{}
			if joined.Valid && joined.String != "" {
				for _, c := range strings.Split(joined.String, "\x1f") {
					if !slices.Contains(cs, c) { // a note linking two keys of one concept
						cs = append(cs, c)
					}
				}
			}
		}
		fn(id, path, title, timeOf(mod), timeOf(acc), cs)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load notes: %w", err)
	}
	return nil
}

// NoteBodies returns the indexed text (the Markdown after the front
// matter, as it was indexed) of the notes with the row ids, by row id;
// notes without indexed text are absent.
func (db *DB) NoteBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.read.QueryContext(ctx, `SELECT rowid, body FROM notes_fts
		WHERE rowid IN (SELECT value FROM json_each(?))`, intsArg(ids))
	if err != nil {
		return nil, fmt.Errorf("read note bodies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("read note bodies: %w", err)
		}
		out[id] = body
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read note bodies: %w", err)
	}
	return out, nil
}

// ConceptLabels returns the label of each concept among ids that exists.
func (db *DB) ConceptLabels(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.read.QueryContext(ctx, `SELECT id, label FROM concepts
		WHERE id IN (SELECT value FROM json_each(?))`, jsonArg(ids))
	if err != nil {
		return nil, fmt.Errorf("load concept labels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, label string
		if err := rows.Scan(&id, &label); err != nil {
			return nil, fmt.Errorf("load concept labels: %w", err)
		}
		out[id] = label
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load concept labels: %w", err)
	}
	return out, nil
}

// ConceptRelations returns the typed relations at the concept with the
// id: those its page declares and those pointing at it through any of its
// keys, each once, in no particular order. Edges are resolved as
// [graph.Reader.Relations] resolves them (a dangling target is
// "concept:<key>" or a missing note's URI).
func (db *DB) ConceptRelations(ctx context.Context, id string) ([]graph.Edge, error) {
	var out []graph.Edge
	err := db.ReadGraph(ctx, func(r graph.Reader) error {
		var err error
		out, err = r.Relations(ctx, nil, []string{id}, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
