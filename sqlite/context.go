package sqlite

import (
	"context"
	"fmt"
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

// ConceptsMentioned returns, for each note among the row ids that links
// any concept, the ids of the concepts it links (each once), in no
// particular order. Links whose key names no concept are left out.
func (db *DB) ConceptsMentioned(ctx context.Context, notes []int64) (map[int64][]string, error) {
	out := make(map[int64][]string, len(notes))
	if len(notes) == 0 {
		return out, nil
	}
	// Rows come in links' primary-key order (note, key): a note's rows are
	// consecutive, and a concept repeats within a note only when the note
	// links two of its keys, which the check against the note's previous
	// concepts catches.
	rows, err := db.read.QueryContext(ctx, `SELECT l.note_id, k.concept_id
		FROM links l JOIN concept_keys k ON k.key = l.key
		WHERE l.note_id IN (SELECT value FROM json_each(?))`, intsArg(notes))
	if err != nil {
		return nil, fmt.Errorf("find concepts mentioned by notes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var note int64
		var id string
		if err := rows.Scan(&note, &id); err != nil {
			return nil, fmt.Errorf("find concepts mentioned by notes: %w", err)
		}
		have := out[note]
		dup := false
		for _, c := range have {
			if c == id {
				dup = true
				break
			}
		}
		if !dup {
			out[note] = append(have, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find concepts mentioned by notes: %w", err)
	}
	return out, nil
}

// ActiveNotes calls fn with each note among the row ids (unknown ones are
// skipped): its vault path, title, modification time (front matter
// `modified`, else the file's mtime) and latest explicit access (zero when
// never read), in no particular order.
func (db *DB) ActiveNotes(ctx context.Context, ids []int64, fn func(id int64, path, title string, modified, accessed time.Time)) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := db.read.QueryContext(ctx, `SELECT n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM notes n LEFT JOIN access a ON a.path = n.path
		WHERE n.id IN (SELECT value FROM json_each(?))`, intsArg(ids))
	if err != nil {
		return fmt.Errorf("load note activity: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, mod, acc int64
		var path, title string
		if err := rows.Scan(&id, &path, &title, &mod, &acc); err != nil {
			return fmt.Errorf("load note activity: %w", err)
		}
		fn(id, path, title, timeOf(mod), timeOf(acc))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load note activity: %w", err)
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
