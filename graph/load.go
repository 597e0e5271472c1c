package graph

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// loader reads nodes and edges inside one read transaction. Every method
// takes an optional SQL filter (a WHERE clause without the keyword) and its
// arguments; lists of ids travel as one JSON array argument, expanded with
// json_each, so no query is built from caller text.
type loader struct {
	ctx context.Context
	tx  *sql.Tx
}

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

const notesQuery = `SELECT id, path, title, tags, aliases, hash, created_ns, modified_ns FROM notes`

// notes reads note nodes. When uris is not nil, it also records each
// note's URI by row id.
func (l loader) notes(filter string, args []any, uris map[int64]string) ([]Node, error) {
	rows, err := l.tx.QueryContext(l.ctx, notesQuery+where(filter), args...)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	defer rows.Close()
	out := []Node{}
	for rows.Next() {
		var n Node
		var rowID int64
		var tags, aliases string
		var created, modified int64
		if err := rows.Scan(&rowID, &n.Path, &n.Label, &tags, &aliases, &n.Checksum, &created, &modified); err != nil {
			return nil, fmt.Errorf("scan note: %w", err)
		}
		n.ID, n.Kind = noteURI(n.Path), KindNote
		if uris != nil {
			uris[rowID] = n.ID
		}
		if n.Tags, err = stringList(tags, "tags of "+n.Path); err != nil {
			return nil, err
		}
		if n.Aliases, err = stringList(aliases, "aliases of "+n.Path); err != nil {
			return nil, err
		}
		n.Created, n.Modified = timeOf(created), timeOf(modified)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return out, nil
}

const conceptsQuery = `SELECT c.id, c.key, c.label, c.aliases, c.description, c.metadata, p.path, c.created_ns, c.updated_ns
	FROM concepts c LEFT JOIN notes p ON p.id = c.page_note_id`

// concepts reads concept nodes; filters name the table c.
func (l loader) concepts(filter string, args []any) ([]Node, error) {
	rows, err := l.tx.QueryContext(l.ctx, conceptsQuery+where(filter), args...)
	if err != nil {
		return nil, fmt.Errorf("list concepts: %w", err)
	}
	defer rows.Close()
	out := []Node{}
	for rows.Next() {
		n := Node{Kind: KindConcept}
		var aliases, meta string
		var page sql.NullString
		var created, updated int64
		if err := rows.Scan(&n.ID, &n.Key, &n.Label, &aliases, &n.Description, &meta, &page, &created, &updated); err != nil {
			return nil, fmt.Errorf("scan concept: %w", err)
		}
		if n.Aliases, err = stringList(aliases, "aliases of concept "+n.ID); err != nil {
			return nil, err
		}
		if n.Metadata, err = jsonObject(meta, "metadata of concept "+n.ID); err != nil {
			return nil, err
		}
		if page.Valid {
			n.Page = noteURI(page.String)
		}
		n.CreatedAt, n.UpdatedAt = timeOf(created), timeOf(updated)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list concepts: %w", err)
	}
	return out, nil
}

// mentionsQuery is the definition of the index's mentions view (links
// resolved through concept_keys), without its GROUP BY: the counts are
// summed in Go. Through the view, SQLite materializes the whole grouping
// before applying a filter; against the base tables a filter on a note or
// a concept reaches their indexes.
const mentionsQuery = `SELECT n.path, k.concept_id, l.count
	FROM links l JOIN concept_keys k ON k.key = l.key JOIN notes n ON n.id = l.note_id`

// mentions reads mentions edges; filters name the tables l, k and n.
func (l loader) mentions(filter string, args []any) ([]Edge, error) {
	rows, err := l.tx.QueryContext(l.ctx, mentionsQuery+where(filter), args...)
	if err != nil {
		return nil, fmt.Errorf("list mentions: %w", err)
	}
	defer rows.Close()
	type pair struct{ path, concept string }
	index := make(map[pair]int)
	var out []Edge
	var counts []float64
	for rows.Next() {
		var p pair
		var count float64
		if err := rows.Scan(&p.path, &p.concept, &count); err != nil {
			return nil, fmt.Errorf("scan mention: %w", err)
		}
		if i, ok := index[p]; ok {
			counts[i] += count
			continue
		}
		index[p] = len(out)
		src := noteURI(p.path)
		out = append(out, Edge{
			ID: "m:" + src + "->" + p.concept, Kind: KindMentions, Type: TypeMentions,
			Source: src, Target: p.concept,
		})
		counts = append(counts, count)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list mentions: %w", err)
	}
	for i := range out {
		out[i].Weight = &counts[i]
	}
	if out == nil {
		out = []Edge{}
	}
	return out, nil
}

// allMentions reads every mentions edge. It joins links to concept_keys
// in Go: three plain table scans beat SQLite's join, which walks links
// through its key index and looks every row up again (5-10x slower on a
// 10,000-note vault). uris maps note row ids to URIs.
func (l loader) allMentions(uris map[int64]string) ([]Edge, error) {
	owner := make(map[string]string) // key -> concept id
	rows, err := l.tx.QueryContext(l.ctx, `SELECT key, concept_id FROM concept_keys`)
	if err != nil {
		return nil, fmt.Errorf("list concept keys: %w", err)
	}
	for rows.Next() {
		var k, c string
		if err := rows.Scan(&k, &c); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan concept key: %w", err)
		}
		owner[k] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list concept keys: %w", err)
	}

	// One edge per link row at most: size the slices once.
	var n int
	if err := l.tx.QueryRowContext(l.ctx, `SELECT COUNT(*) FROM links`).Scan(&n); err != nil {
		return nil, fmt.Errorf("count links: %w", err)
	}
	out := make([]Edge, 0, n)
	counts := make([]float64, 0, n)
	// Links come in primary-key order, so a note's rows are consecutive.
	rows, err = l.tx.QueryContext(l.ctx, `SELECT note_id, key, count FROM links ORDER BY note_id`)
	if err != nil {
		return nil, fmt.Errorf("list links: %w", err)
	}
	defer rows.Close()
	current := make(map[string]int) // concept id -> index in out, for one note
	last := int64(-1)
	for rows.Next() {
		var noteID int64
		var k string
		var count float64
		if err := rows.Scan(&noteID, &k, &count); err != nil {
			return nil, fmt.Errorf("scan link: %w", err)
		}
		concept, ok := owner[k]
		src, known := uris[noteID]
		if !ok || !known {
			continue
		}
		if noteID != last {
			clear(current)
			last = noteID
		}
		if i, ok := current[concept]; ok {
			counts[i] += count
			continue
		}
		current[concept] = len(out)
		out = append(out, Edge{
			ID: "m:" + src + "->" + concept, Kind: KindMentions, Type: TypeMentions,
			Source: src, Target: concept,
		})
		counts = append(counts, count)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list links: %w", err)
	}
	for i := range out {
		out[i].Weight = &counts[i]
	}
	return out, nil
}

// relationsQuery resolves both ends of every relation: the source is the
// concept whose page declares it, else the declaring note; the target is
// the concept owning the key, or the note at the path (NULL when missing).
// A page note belongs to one concept (RecomputeConcepts claims each page
// once); MIN keeps the answer defined even if that ever changed.
const relationsQuery = `SELECT r.id, r.type, r.to_ref, r.weight, r.metadata, n.path, pc.cid,
	CASE WHEN substr(r.to_ref, 1, 8) = 'concept:'
		THEN (SELECT k.concept_id FROM concept_keys k WHERE k.key = substr(r.to_ref, 9)) END,
	CASE WHEN substr(r.to_ref, 1, 5) = 'note:'
		THEN (SELECT t.path FROM notes t WHERE t.path = substr(r.to_ref, 6)) END
	FROM relations r
	JOIN notes n ON n.id = r.note_id
	LEFT JOIN (SELECT page_note_id AS nid, MIN(id) AS cid FROM concepts
		WHERE page_note_id IS NOT NULL GROUP BY page_note_id) pc ON pc.nid = r.note_id`

// relations reads relation edges; filters name the tables r and n.
func (l loader) relations(filter string, args []any) ([]Edge, error) {
	rows, err := l.tx.QueryContext(l.ctx, relationsQuery+where(filter), args...)
	if err != nil {
		return nil, fmt.Errorf("list relations: %w", err)
	}
	defer rows.Close()
	out := []Edge{}
	for rows.Next() {
		e := Edge{Kind: KindRelation}
		var toRef, meta, path string
		var weight sql.NullFloat64
		var srcConcept, tgtConcept, tgtNote sql.NullString
		if err := rows.Scan(&e.ID, &e.Type, &toRef, &weight, &meta, &path, &srcConcept, &tgtConcept, &tgtNote); err != nil {
			return nil, fmt.Errorf("scan relation: %w", err)
		}
		e.Source = noteURI(path)
		if srcConcept.Valid {
			e.Source = srcConcept.String
		}
		switch {
		case tgtConcept.Valid:
			e.Target = tgtConcept.String
		case tgtNote.Valid:
			e.Target = noteURI(tgtNote.String)
		case len(toRef) >= 5 && toRef[:5] == "note:":
			e.Target, e.Dangling = noteURI(toRef[5:]), true
		default:
			e.Target, e.Dangling = toRef, true
		}
		// The vault only accepts finite weights; JSON could not carry others.
		if weight.Valid && !math.IsNaN(weight.Float64) && !math.IsInf(weight.Float64, 0) {
			w := weight.Float64
			e.Weight = &w
		}
		if e.Metadata, err = jsonObject(meta, "metadata of relation "+e.ID); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list relations: %w", err)
	}
	return out, nil
}

// nodes reads the nodes with the given canonical ids (unknown ids are
// skipped), in canonical order.
func (l loader) nodes(ids []string) ([]Node, error) {
	var paths, concepts []string
	for _, id := range ids {
		if isNoteID(id) {
			paths = append(paths, notePath(id))
		} else {
			concepts = append(concepts, id)
		}
	}
	out := []Node{}
	if len(paths) > 0 {
		ns, err := l.notes(`path IN (SELECT value FROM json_each(?))`, []any{jsonArg(paths)}, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, ns...)
	}
	if len(concepts) > 0 {
		cs, err := l.concepts(`c.id IN (SELECT value FROM json_each(?))`, []any{jsonArg(concepts)})
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	sortNodes(out)
	return out, nil
}

// incident reads every edge with at least one end among ids (canonical
// node ids), each once, in no particular order. With induced set, it reads
// only edges with both ends among ids (so never a dangling one).
func (l loader) incident(ids []string, induced bool) ([]Edge, error) {
	var paths, concepts []string
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
		if isNoteID(id) {
			paths = append(paths, notePath(id))
		} else {
			concepts = append(concepts, id)
		}
	}
	pj, cj := jsonArg(paths), jsonArg(concepts)
	var edges []Edge
	add := func(es []Edge, err error) error {
		if err != nil {
			return err
		}
		edges = append(edges, es...)
		return nil
	}
	const inNotes = `n.path IN (SELECT value FROM json_each(?))`
	const inConcepts = `k.concept_id IN (SELECT value FROM json_each(?))`
	if induced {
		if len(paths) > 0 && len(concepts) > 0 {
			if err := add(l.mentions(inNotes+` AND `+inConcepts, []any{pj, cj})); err != nil {
				return nil, err
			}
		}
	} else {
		if len(paths) > 0 {
			if err := add(l.mentions(inNotes, []any{pj})); err != nil {
				return nil, err
			}
		}
		if len(concepts) > 0 {
			// Skip the pairs the first query already returned.
			if err := add(l.mentions(inConcepts+` AND n.path NOT IN (SELECT value FROM json_each(?))`, []any{cj, pj})); err != nil {
				return nil, err
			}
		}
	}
	// Relations declared by the nodes (a concept declares in its page)…
	declared := `r.note_id IN (SELECT id FROM notes WHERE path IN (SELECT value FROM json_each(?)))
		OR r.note_id IN (SELECT page_note_id FROM concepts WHERE id IN (SELECT value FROM json_each(?)))`
	rels, err := l.relations(declared, []any{pj, cj})
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(rels))
	for _, e := range rels {
		seen[e.ID] = true
	}
	// …and relations pointing at them, through any key of a concept.
	if !induced {
		pointing := `r.to_ref IN (SELECT 'note:' || value FROM json_each(?))
			OR r.to_ref IN (SELECT 'concept:' || key FROM concept_keys WHERE concept_id IN (SELECT value FROM json_each(?)))`
		in, err := l.relations(pointing, []any{pj, cj})
		if err != nil {
			return nil, err
		}
		for _, e := range in {
			if !seen[e.ID] {
				rels = append(rels, e)
			}
		}
	}
	for _, e := range rels {
		// A page's relation starts at its concept: it touches the set only
		// when that concept or the target is in it.
		if (induced && set[e.Source] && set[e.Target] && !e.Dangling) || (!induced && (set[e.Source] || set[e.Target])) {
			edges = append(edges, e)
		}
	}
	return edges, nil
}
