package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/noema-mem/noema"
)

// GraphIndex is the graph index (ports [noema.GraphSource] and
// [noema.ConceptLinker]) over a DB: the nodes and edges of
// export_graph, get_node, neighbors and subgraph, and what analyze_graph
// reads besides them (analyze.go).
type GraphIndex struct{ db *DB }

var (
	_ noema.GraphSource   = (*GraphIndex)(nil)
	_ noema.ConceptLinker = (*GraphIndex)(nil)
)

// Graph returns the graph index over db.
func (db *DB) Graph() *GraphIndex { return &GraphIndex{db: db} }

// ReadGraph runs fn with a [noema.GraphReader] on one read transaction, so
// every query fn makes sees one consistent snapshot of the index.
func (g *GraphIndex) ReadGraph(ctx context.Context, fn func(r noema.GraphReader) error) error {
	return g.db.ReadTx(ctx, func(tx *sql.Tx) error {
		return fn(&graphReader{tx: tx})
	})
}

// graphReader reads nodes and edges inside one read transaction. Lists of
// ids travel as one JSON array argument, expanded with json_each, so no
// query is built from caller text.
type graphReader struct {
	tx *sql.Tx
	// uris maps note row ids to URIs, filled by Notes(ctx, nil) and used
	// by AllMentions (which loads it when Notes did not).
	uris map[int64]string
}

var _ noema.GraphReader = (*graphReader)(nil)

func where(filter string) string {
	if filter == "" {
		return ""
	}
	return " WHERE " + filter
}

// jsonArg encodes a list of ids as one query argument for json_each.
func jsonArg(ids []string) string {
	if len(ids) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func stringList(text, what string) ([]string, error) {
	if text == "[]" {
		return []string{}, nil
	}
	out := []string{}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// jsonObject returns stored JSON compacted: a no-op for the canonical JSON
// the indexer writes, and an error rather than invalid output otherwise.
func jsonObject(text, what string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return nil, fmt.Errorf("decode %s: %w", what, err)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// exists reports whether query (selecting 1) returns a row.
func (r *graphReader) exists(ctx context.Context, query, arg string) (bool, error) {
	var one int
	err := r.tx.QueryRowContext(ctx, query, arg).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// HasNote reports whether a note is indexed at the vault path.
func (r *graphReader) HasNote(ctx context.Context, path string) (bool, error) {
	ok, err := r.exists(ctx, `SELECT 1 FROM notes WHERE path = ?`, path)
	if err != nil {
		return false, fmt.Errorf("look up note %q: %w", path, err)
	}
	return ok, nil
}

// HasConcept reports whether a concept has the id.
func (r *graphReader) HasConcept(ctx context.Context, id string) (bool, error) {
	ok, err := r.exists(ctx, `SELECT 1 FROM concepts WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("look up node %q: %w", id, err)
	}
	return ok, nil
}

const graphNotesQuery = `SELECT id, path, title, tags, aliases, hash, created_ns, modified_ns FROM notes`

// Notes reads the note nodes at the given vault paths (unknown ones are
// skipped), or every note when paths is nil, in no particular order.
func (r *graphReader) Notes(ctx context.Context, paths []string) ([]noema.GraphNode, error) {
	if paths == nil {
		r.uris = make(map[int64]string)
		return r.notes(ctx, "", nil, r.uris)
	}
	if len(paths) == 0 {
		return []noema.GraphNode{}, nil
	}
	return r.notes(ctx, `path IN (SELECT value FROM json_each(?))`, []any{jsonArg(paths)}, nil)
}

// notes reads note nodes matching filter. When uris is not nil, it also
// records each note's URI by row id.
func (r *graphReader) notes(ctx context.Context, filter string, args []any, uris map[int64]string) ([]noema.GraphNode, error) {
	out, err := collect(ctx, r.tx, graphNotesQuery+where(filter), args, func(rows *sql.Rows) (noema.GraphNode, error) {
		var n noema.GraphNode
		var rowID int64
		var tags, aliases string
		var created, modified int64
		err := rows.Scan(&rowID, &n.Path, &n.Label, &tags, &aliases, &n.Checksum, &created, &modified)
		if err != nil {
			return n, err
		}
		n.ID, n.Kind = noema.NoteURI(n.Path), noema.NodeNote
		if uris != nil {
			uris[rowID] = n.ID
		}
		if n.Tags, err = stringList(tags, "tags of "+n.Path); err != nil {
			return n, err
		}
		if n.Aliases, err = stringList(aliases, "aliases of "+n.Path); err != nil {
			return n, err
		}
		n.Created, n.Modified = timeOf(created), timeOf(modified)
		return n, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return out, nil
}

const graphConceptsQuery = `SELECT c.id, c.key, c.label, c.aliases, c.description, c.metadata, p.path, c.created_ns, c.updated_ns
	FROM concepts c LEFT JOIN notes p ON p.id = c.page_note_id`

// Concepts reads the concept nodes with the given ids (unknown ones are
// skipped), or every concept when ids is nil, in no particular order.
func (r *graphReader) Concepts(ctx context.Context, ids []string) ([]noema.GraphNode, error) {
	if ids == nil {
		return r.concepts(ctx, "", nil)
	}
	if len(ids) == 0 {
		return []noema.GraphNode{}, nil
	}
	return r.concepts(ctx, `c.id IN (SELECT value FROM json_each(?))`, []any{jsonArg(ids)})
}

// concepts reads concept nodes; filters name the table c.
func (r *graphReader) concepts(ctx context.Context, filter string, args []any) ([]noema.GraphNode, error) {
	out, err := collect(ctx, r.tx, graphConceptsQuery+where(filter), args, func(rows *sql.Rows) (noema.GraphNode, error) {
		n := noema.GraphNode{Kind: noema.NodeConcept}
		var aliases, meta string
		var page sql.NullString
		var created, updated int64
		err := rows.Scan(&n.ID, &n.Key, &n.Label, &aliases, &n.Description, &meta, &page, &created, &updated)
		if err != nil {
			return n, err
		}
		if n.Aliases, err = stringList(aliases, "aliases of concept "+n.ID); err != nil {
			return n, err
		}
		if n.Metadata, err = jsonObject(meta, "metadata of concept "+n.ID); err != nil {
			return n, err
		}
		if page.Valid {
			n.Page = noema.NoteURI(page.String)
		}
		n.CreatedAt, n.UpdatedAt = timeOf(created), timeOf(updated)
		return n, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list concepts: %w", err)
	}
	return out, nil
}

// graphMentionsQuery is the definition of the index's mentions view (links
// resolved through concept_keys), without its GROUP BY: the counts are
// summed in Go. Through the view, SQLite materializes the whole grouping
// before applying a filter; against the base tables a filter on a note or
// a concept reaches their indexes.
const graphMentionsQuery = `SELECT n.path, k.concept_id, l.count, l.pos
	FROM links l JOIN concept_keys k ON k.key = l.key JOIN notes n ON n.id = l.note_id`

// Mentions reads the mentions edges from the notes at paths or to the
// concepts with the given ids, each once, in no particular order; with
// induced set, only those from one of the notes to one of the concepts.
func (r *graphReader) Mentions(ctx context.Context, paths, concepts []string, induced bool) ([]noema.GraphEdge, error) {
	const inNotes = `n.path IN (SELECT value FROM json_each(?))`
	const inConcepts = `k.concept_id IN (SELECT value FROM json_each(?))`
	pj, cj := jsonArg(paths), jsonArg(concepts)
	var edges []noema.GraphEdge
	if induced {
		if len(paths) > 0 && len(concepts) > 0 {
			return r.mentions(ctx, inNotes+` AND `+inConcepts, []any{pj, cj})
		}
		return []noema.GraphEdge{}, nil
	}
	if len(paths) > 0 {
		es, err := r.mentions(ctx, inNotes, []any{pj})
		if err != nil {
			return nil, err
		}
		edges = append(edges, es...)
	}
	if len(concepts) > 0 {
		// Skip the pairs the first query already returned.
		es, err := r.mentions(ctx, inConcepts+` AND n.path NOT IN (SELECT value FROM json_each(?))`, []any{cj, pj})
		if err != nil {
			return nil, err
		}
		edges = append(edges, es...)
	}
	if edges == nil {
		edges = []noema.GraphEdge{}
	}
	return edges, nil
}

// mentions reads mentions edges; filters name the tables l, k and n.
func (r *graphReader) mentions(ctx context.Context, filter string, args []any) ([]noema.GraphEdge, error) {
	type pair struct{ path, concept string }
	index := make(map[pair]int)
	var m mentionEdges
	err := eachRow(ctx, r.tx, graphMentionsQuery+where(filter), args, func(rows *sql.Rows) error {
		var p pair
		var count float64
		var pos int
		if err := rows.Scan(&p.path, &p.concept, &count, &pos); err != nil {
			return err
		}
		addMention(&m, index, p, noema.NoteURI(p.path), p.concept, count, pos)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list mentions: %w", err)
	}
	if out := m.edges(); out != nil {
		return out, nil
	}
	return []noema.GraphEdge{}, nil
}

// mentionEdges gathers mentions edges, each weighing the sum of its link
// counts, at the position of its first link.
type mentionEdges struct {
	out    []noema.GraphEdge
	counts []float64
}

// addMention adds count links from src to concept, the first at pos: to
// the edge index[k] when there is one, else to a new edge, which index[k]
// then names.
func addMention[K comparable](m *mentionEdges, index map[K]int, k K, src, concept string, count float64, pos int) {
	if i, ok := index[k]; ok {
		m.counts[i] += count
		m.out[i].Position = min(m.out[i].Position, pos)
		return
	}
	index[k] = len(m.out)
	m.out = append(m.out, noema.GraphEdge{
		ID: "m:" + src + "->" + concept, Kind: noema.EdgeMentions, Type: noema.TypeMentions,
		Source: src, Target: concept, Position: pos,
	})
	m.counts = append(m.counts, count)
}

// edges returns the edges with their weights.
func (m *mentionEdges) edges() []noema.GraphEdge {
	for i := range m.out {
		m.out[i].Weight = &m.counts[i]
	}
	return m.out
}

// AllMentions reads every mentions edge. It joins links to concept_keys
// in Go: three plain table scans beat SQLite's join, which walks links
// through its key index and looks every row up again (5-10x slower on a
// 10,000-note vault).
func (r *graphReader) AllMentions(ctx context.Context) ([]noema.GraphEdge, error) {
	if r.uris == nil {
		uris, err := r.noteURIs(ctx)
		if err != nil {
			return nil, err
		}
		r.uris = uris
	}
	owner := make(map[string]string) // key -> concept id
	if err := eachConceptKey(ctx, r.tx, func(k, c string) { owner[k] = c }); err != nil {
		return nil, fmt.Errorf("list concept keys: %w", err)
	}

	// One edge per link row at most: size the slices once.
	var n int
	if err := r.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM links`).Scan(&n); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	m := mentionEdges{out: make([]noema.GraphEdge, 0, n), counts: make([]float64, 0, n)}
	// Links come in primary-key order, so a note's rows are consecutive.
	current := make(map[string]int) // concept id -> index in out, for one note
	last := int64(-1)
	err := eachRow(ctx, r.tx, `SELECT note_id, key, count, pos FROM links ORDER BY note_id`, nil, func(rows *sql.Rows) error {
		var noteID int64
		var k string
		var count float64
		var pos int
		if err := rows.Scan(&noteID, &k, &count, &pos); err != nil {
			return err
		}
		concept, ok := owner[k]
		src, known := r.uris[noteID]
		if !ok || !known {
			return nil
		}
		if noteID != last {
			clear(current)
			last = noteID
		}
		addMention(&m, current, concept, src, concept, count, pos)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list links: %w", err)
	}
	return m.edges(), nil
}

// eachConceptKey calls fn with every concept key and the id of the concept
// that owns it.
func eachConceptKey(ctx context.Context, q querier, fn func(key, concept string)) error {
	return eachPair(ctx, q, `SELECT key, concept_id FROM concept_keys`, nil, fn)
}

// noteURIs maps every note's row id to its URI.
func (r *graphReader) noteURIs(ctx context.Context) (map[int64]string, error) {
	uris := make(map[int64]string)
	err := eachPair(ctx, r.tx, `SELECT id, path FROM notes`, nil, func(id int64, path string) {
		uris[id] = noema.NoteURI(path)
	})
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return uris, nil
}

// graphRelationsQuery resolves both ends of every relation: the source is
// the concept whose page declares it, else the declaring note; the target
// is the concept owning the key, or the note at the path (NULL when
// missing). A page note belongs to one concept (RecomputeConcepts claims
// each page once); MIN keeps the answer defined even if that ever changed.
const graphRelationsQuery = `SELECT r.id, r.type, r.to_ref, r.weight, r.metadata, n.path, pc.cid,
	CASE WHEN substr(r.to_ref, 1, 8) = 'concept:'
		THEN (SELECT k.concept_id FROM concept_keys k WHERE k.key = substr(r.to_ref, 9)) END,
	CASE WHEN substr(r.to_ref, 1, 5) = 'note:'
		THEN (SELECT t.path FROM notes t WHERE t.path = substr(r.to_ref, 6)) END
	FROM relations r
	JOIN notes n ON n.id = r.note_id
	LEFT JOIN (SELECT page_note_id AS nid, MIN(id) AS cid FROM concepts
		WHERE page_note_id IS NOT NULL GROUP BY page_note_id) pc ON pc.nid = r.note_id`

// AllRelations reads every relation edge, dangling ones included, in no
// particular order.
func (r *graphReader) AllRelations(ctx context.Context) ([]noema.GraphEdge, error) {
	return r.relations(ctx, "", nil)
}

// Relations reads the relation edges declared by the notes at paths or in
// the pages of the concepts with the given ids, and, unless declaredOnly,
// those pointing at them (through any key of a concept), each once, in no
// particular order.
func (r *graphReader) Relations(ctx context.Context, paths, concepts []string, declaredOnly bool) ([]noema.GraphEdge, error) {
	pj, cj := jsonArg(paths), jsonArg(concepts)
	declared := `r.note_id IN (SELECT id FROM notes WHERE path IN (SELECT value FROM json_each(?)))
		OR r.note_id IN (SELECT page_note_id FROM concepts WHERE id IN (SELECT value FROM json_each(?)))`
	rels, err := r.relations(ctx, declared, []any{pj, cj})
	if err != nil {
		return nil, err
	}
	if declaredOnly {
		return rels, nil
	}
	seen := make(map[string]bool, len(rels))
	for _, e := range rels {
		seen[e.ID] = true
	}
	pointing := `r.to_ref IN (SELECT 'note:' || value FROM json_each(?))
		OR r.to_ref IN (SELECT 'concept:' || key FROM concept_keys WHERE concept_id IN (SELECT value FROM json_each(?)))`
	in, err := r.relations(ctx, pointing, []any{pj, cj})
	if err != nil {
		return nil, err
	}
	for _, e := range in {
		if !seen[e.ID] {
			rels = append(rels, e)
		}
	}
	return rels, nil
}

// relations reads relation edges; filters name the tables r and n.
func (r *graphReader) relations(ctx context.Context, filter string, args []any) ([]noema.GraphEdge, error) {
	out, err := collect(ctx, r.tx, graphRelationsQuery+where(filter), args, func(rows *sql.Rows) (noema.GraphEdge, error) {
		e := noema.GraphEdge{Kind: noema.EdgeRelation}
		var toRef, meta, path string
		var weight sql.NullFloat64
		var srcConcept, tgtConcept, tgtNote sql.NullString
		err := rows.Scan(&e.ID, &e.Type, &toRef, &weight, &meta, &path, &srcConcept, &tgtConcept, &tgtNote)
		if err != nil {
			return e, err
		}
		e.Source = noema.NoteURI(path)
		if srcConcept.Valid {
			e.Source = srcConcept.String
		}
		switch {
		case tgtConcept.Valid:
			e.Target = tgtConcept.String
		case tgtNote.Valid:
			e.Target = noema.NoteURI(tgtNote.String)
		case len(toRef) >= 5 && toRef[:5] == "note:":
			e.Target, e.Dangling = noema.NoteURI(toRef[5:]), true
		default:
			e.Target, e.Dangling = toRef, true
		}
		// The vault only accepts finite weights; JSON could not carry others.
		if weight.Valid && !math.IsNaN(weight.Float64) && !math.IsInf(weight.Float64, 0) {
			w := weight.Float64
			e.Weight = &w
		}
		e.Metadata, err = jsonObject(meta, "metadata of relation "+e.ID)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list relations: %w", err)
	}
	return out, nil
}
