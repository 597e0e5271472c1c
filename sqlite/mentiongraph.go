package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/noema-mem/noema"
)

// mentionGraph is an immutable in-memory copy of the mention graph: every
// note with its activity and the concepts it links, and every concept with
// its label and the notes that link it. build_context walks co-occurrence
// through thousands of notes per call; in memory that is microseconds per
// thousand links where a query per call costs tens of milliseconds on a
// 10,000-note vault.
//
// Notes and concepts are numbered densely: a note's Concepts and a
// concept's Notes hold numbers of the other kind. Notes are numbered by
// ascending row id. A refresh applies what changed to a copy that shares
// every unchanged part with the graph it started from: a new concept gets
// the next number, and a deleted note or concept keeps its number as a
// hole (Deleted) until the graph is next read in full. A graph is never
// modified once returned, so callers may read it without locks, and must
// not modify what its accessors return.
type mentionGraph struct {
	notes    paged[noema.MentionNote]
	concepts paged[noema.MentionConcept]

	conceptIndex overlay // concept id -> number, live concepts only
	owner        overlay // concept key -> number of the concept owning it
	holes        int     // deleted notes and concepts kept as holes

	// seq is the graph_log position the graph reflects: a refresh reads
	// the log's rows after it.
	seq int64
}

var _ noema.MentionGraph = (*mentionGraph)(nil)

// NumNotes returns how many notes are numbered, deleted ones included.
func (g *mentionGraph) NumNotes() int { return g.notes.len() }

// NoteAt returns the note numbered i (0 ≤ i < NumNotes).
func (g *mentionGraph) NoteAt(i int32) *noema.MentionNote { return g.notes.at(i) }

// NumConcepts returns how many concepts are numbered, deleted ones
// included.
func (g *mentionGraph) NumConcepts() int { return g.concepts.len() }

// ConceptAt returns the concept numbered j (0 ≤ j < NumConcepts).
func (g *mentionGraph) ConceptAt(j int32) *noema.MentionConcept { return g.concepts.at(j) }

// Concept returns the number of the concept with the id.
func (g *mentionGraph) Concept(id string) (int32, bool) { return g.conceptIndex.get(id) }

// Note returns the number of the note with the row id.
func (g *mentionGraph) Note(id int64) (int32, bool) {
	i, ok := g.slot(id)
	if !ok || g.notes.at(i).Deleted {
		return 0, false
	}
	return i, true
}

// slot returns the number of the note, live or deleted, with the row id.
func (g *mentionGraph) slot(id int64) (int32, bool) {
	n := g.notes.len()
	i := sort.Search(n, func(i int) bool { return g.notes.at(int32(i)).ID >= id })
	if i < n && g.notes.at(int32(i)).ID == id {
		return int32(i), true
	}
	return 0, false
}

// MentionGraph returns a mention graph that matches the index as of this
// call: prev itself when nothing it holds changed since it was built (the
// cost of one read of the graph log's ends), else a graph refreshed from
// prev in one read transaction. A refresh reads the graph_log rows written
// since prev (triggers record every note, concept, concept key and access
// that changed) and then only what they name: the changed notes and their
// links, the changed concepts and keys, the notes linking a key that moved
// to another concept. With prev nil, when the log no longer reaches back
// to prev, or when the changes are a large part of the graph, everything
// is read. Keep the returned graph and pass it as prev next time; the DB
// also keeps the newest one it returned, for [GraphIndex.ConceptLinks].
func (m *MentionIndex) MentionGraph(ctx context.Context, prev noema.MentionGraph) (noema.MentionGraph, error) {
	var g *mentionGraph
	kept, _ := prev.(*mentionGraph) // another index's graph: read in full
	if kept == nil {
		// The DB's latest graph, when there is one, spares a full read.
		defer m.db.firstMentions()()
		kept = m.db.mentions.Load()
	}
	err := m.db.ReadTx(ctx, func(tx *sql.Tx) error {
		var err error
		g, err = refreshMentions(ctx, tx, kept)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read mention graph: %w", err)
	}
	m.db.keepMentions(g)
	return g, nil
}

// keepMentions keeps g as the DB's latest mention graph. Of two refreshes
// racing, either may be kept: a refresh from any graph is correct, it only
// applies more of the log from an older one.
func (db *DB) keepMentions(g *mentionGraph) { db.mentions.Store(g) }

// firstMentions makes the callers that find no graph kept wait for one of
// them to read it, so that a server's first readers (the web view's map,
// the first build_context) do not each read every link of the vault (1.8
// CPU s apiece at 100,000 notes); the others then refresh it from the log.
// It returns the function that lets the next one in (nothing to release
// when a graph is kept).
func (db *DB) firstMentions() (release func()) {
	if db.mentions.Load() != nil {
		return func() {}
	}
	db.mentionsFirst.Lock()
	return db.mentionsFirst.Unlock
}

// Graph log kinds (migration 0016_graph_log.sql).
const (
	logNote    = 1 // ref: a note's row id
	logConcept = 2 // ref: a concept id
	logKey     = 3 // ref: a concept key
	logAccess  = 4 // ref: a note path
)

// refreshMentions builds the graph of the snapshot tx reads: prev with the
// logged changes applied, or (prev nil, or the log not reaching back to
// it, or changes too many to be worth applying one by one) read in full.
func refreshMentions(ctx context.Context, tx *sql.Tx, prev *mentionGraph) (*mentionGraph, error) {
	since := int64(-1) // no graph: read everything
	if prev != nil {
		since = prev.seq
	}
	hi, reaches, err := logReaches(ctx, tx, since)
	if err != nil {
		return nil, err
	}
	if !reaches {
		return readMentions(ctx, tx, hi)
	}
	if prev.seq == hi {
		return prev, nil // commits since, but none the graph follows
	}
	// Past this many changes, reading everything costs less than applying
	// them; holes are cleared the same way.
	limit := 4096 + (prev.NumNotes()+prev.NumConcepts())/4
	if prev.holes > limit {
		return readMentions(ctx, tx, hi)
	}
	ch, n, err := readLog(ctx, tx, prev.seq)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return readMentions(ctx, tx, hi)
	}
	g, ok, err := applyMentions(ctx, tx, prev, &ch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return readMentions(ctx, tx, hi)
	}
	g.seq = hi
	return g, nil
}

// logReaches returns the graph log's newest position and whether the log
// still holds every change after position since (false, too, when since
// is past its end: another index's, or one rebuilt since).
func logReaches(ctx context.Context, tx *sql.Tx, since int64) (hi int64, reaches bool, err error) {
	var lo, end sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT MIN(seq) FROM graph_log), (SELECT MAX(seq) FROM graph_log)`).Scan(&lo, &end); err != nil {
		return 0, false, fmt.Errorf("read graph log: %w", err)
	}
	return end.Int64, since >= 0 && since <= end.Int64 && (!lo.Valid || since >= lo.Int64-1), nil
}

// readLog reads the graph log's changes after position since, and how
// many rows held them.
func readLog(ctx context.Context, tx *sql.Tx, since int64) (ch logChanges, n int, err error) {
	err = eachRow(ctx, tx, `SELECT kind, ref FROM graph_log WHERE seq > ? ORDER BY seq`, []any{since}, func(rows *sql.Rows) error {
		var kind int
		var ref any
		if err := rows.Scan(&kind, &ref); err != nil {
			return err
		}
		n++
		ch.add(kind, ref)
		return nil
	})
	if err != nil {
		return logChanges{}, 0, fmt.Errorf("read graph log: %w", err)
	}
	return ch, n, nil
}

// logChanges are the distinct graph_log refs of a refresh, by kind.
type logChanges struct {
	notes    map[int64]bool
	concepts map[string]bool
	keys     map[string]bool
	access   map[string]bool
}

func (c *logChanges) add(kind int, ref any) {
	switch kind {
	case logNote:
		if id, ok := ref.(int64); ok {
			if c.notes == nil {
				c.notes = map[int64]bool{}
			}
			c.notes[id] = true
		}
	case logConcept, logKey, logAccess:
		s, ok := ref.(string)
		if !ok {
			return
		}
		m := &c.concepts
		if kind == logKey {
			m = &c.keys
		} else if kind == logAccess {
			m = &c.access
		}
		if *m == nil {
			*m = map[string]bool{}
		}
		(*m)[s] = true
	}
}

// linkAt is one link row of a note: its key and position.
type linkAt struct {
	pos int32
	key string
}

// readMentions reads the whole graph at log position seq.
func readMentions(ctx context.Context, tx *sql.Tx, seq int64) (*mentionGraph, error) {
	g := &mentionGraph{seq: seq}
	ids := map[string]int32{}
	var cs pagedEdit[noema.MentionConcept]
	err := eachPair(ctx, tx, `SELECT id, label FROM concepts ORDER BY id`, nil, func(id, label string) {
		ids[id] = cs.append(noema.MentionConcept{ID: id, Label: label})
	})
	if err != nil {
		return nil, fmt.Errorf("list concepts: %w", err)
	}
	owner := map[string]int32{}
	err = eachPair(ctx, tx, `SELECT key, concept_id FROM concept_keys`, nil, func(k, id string) {
		if c, ok := ids[id]; ok {
			owner[k] = c
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list concept keys: %w", err)
	}
	g.concepts, g.conceptIndex, g.owner = cs.p, overlay{base: ids}, overlay{base: owner}

	var ns pagedEdit[noema.MentionNote]
	err = eachRow(ctx, tx, `SELECT n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM notes n LEFT JOIN access a ON a.path = n.path ORDER BY n.id`, nil, func(rows *sql.Rows) error {
		n, err := scanMentionNote(rows)
		if err != nil {
			return err
		}
		ns.append(n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	g.notes = ns.p
	// Links come in primary-key order: a note's rows are consecutive.
	var cur []linkAt
	last, at := int64(-1), int32(-1)
	flush := func() {
		if at >= 0 {
			n := g.notes.at(at)
			n.Order, n.Concepts = g.resolve(cur)
		}
		cur = cur[:0]
	}
	err = eachRow(ctx, tx, `SELECT note_id, key, pos FROM links ORDER BY note_id`, nil, func(rows *sql.Rows) error {
		var id int64
		var l linkAt
		if err := rows.Scan(&id, &l.key, &l.pos); err != nil {
			return err
		}
		if id != last {
			flush()
			last = id
			at = -1
			if i, ok := g.slot(id); ok {
				at = i
			}
		}
		cur = append(cur, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	flush()

	// The inverted lists, in note order.
	counts := make([]int32, g.concepts.len())
	for i := range g.notes.len() {
		for _, c := range g.notes.at(int32(i)).Concepts {
			counts[c]++
		}
	}
	for j := range g.concepts.len() {
		c := g.concepts.at(int32(j))
		c.Notes, c.At = make([]int32, 0, counts[j]), make([]int32, 0, counts[j])
	}
	for i := range g.notes.len() {
		for p, c := range g.notes.at(int32(i)).Order {
			cc := g.concepts.at(c)
			cc.Notes = append(cc.Notes, int32(i))
			cc.At = append(cc.At, int32(p))
		}
	}
	return g, nil
}

// scanMentionNote scans id, path, title, modified_ns and accessed_ns.
func scanMentionNote(rows *sql.Rows) (noema.MentionNote, error) {
	var n noema.MentionNote
	var mod, acc int64
	err := rows.Scan(&n.ID, &n.Path, &n.Title, &mod, &acc)
	n.Modified, n.Accessed = timeOf(mod), timeOf(acc)
	return n, err
}

// resolve turns a note's link rows into its concepts, in the order of
// their first link (ties by concept id) and ascending.
func (g *mentionGraph) resolve(links []linkAt) (order, concepts []int32) {
	type placed struct {
		pos int32
		c   int32
	}
	ps := make([]placed, 0, len(links))
	for _, l := range links {
		if c, ok := g.owner.get(l.key); ok {
			ps = append(ps, placed{l.pos, c})
		}
	}
	slices.SortFunc(ps, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), strings.Compare(g.concepts.at(a.c).ID, g.concepts.at(b.c).ID))
	})
	cs := make([]int32, len(ps))
	for i, p := range ps {
		cs[i] = p.c
	}
	order = noema.FirstMentions(cs)
	concepts = slices.Clone(order)
	slices.Sort(concepts)
	return order, concepts
}

// applyMentions returns prev with the logged changes ch applied, reading
// only the rows they name. ok is false when they cannot be applied (a new
// note whose row id is below a numbered one's): then the graph must be
// read in full.
func applyMentions(ctx context.Context, tx *sql.Tx, prev *mentionGraph, ch *logChanges) (g *mentionGraph, ok bool, err error) {
	g = &mentionGraph{holes: prev.holes}
	cs := editPaged(prev.concepts)
	ns := editPaged(prev.notes)

	// Concepts: relabelled, new (the next numbers) or deleted (holes).
	index := map[string]int32{}
	if len(ch.concepts) > 0 {
		found := map[string]string{}
		err := eachPair(ctx, tx, `SELECT id, label FROM concepts WHERE id IN (SELECT value FROM json_each(?))`,
			[]any{jsonArg(slices.Sorted(maps.Keys(ch.concepts)))}, func(id, label string) { found[id] = label })
		if err != nil {
			return nil, false, fmt.Errorf("read concepts: %w", err)
		}
		for _, id := range slices.Sorted(maps.Keys(ch.concepts)) {
			label, live := found[id]
			j, known := prev.conceptIndex.get(id)
			switch {
			case live && known:
				if c := cs.p.at(j); c.Label != label {
					cs.set(j).Label = label
				}
			case live:
				index[id] = cs.append(noema.MentionConcept{ID: id, Label: label})
			case known:
				c := cs.set(j)
				c.Deleted = true
				index[id] = -1
				g.holes++
			}
		}
	}
	g.concepts, g.conceptIndex = cs.p, prev.conceptIndex.with(index)

	// Keys: a key whose owner changed re-resolves the notes linking it.
	owners := map[string]int32{}
	var moved []string
	if len(ch.keys) > 0 {
		keys := slices.Sorted(maps.Keys(ch.keys))
		found := map[string]string{}
		err := eachPair(ctx, tx, `SELECT key, concept_id FROM concept_keys WHERE key IN (SELECT value FROM json_each(?))`,
			[]any{jsonArg(keys)}, func(k, id string) { found[k] = id })
		if err != nil {
			return nil, false, fmt.Errorf("read concept keys: %w", err)
		}
		for _, k := range keys {
			now := int32(-1)
			if id, ok := found[k]; ok {
				if c, ok := g.conceptIndex.get(id); ok {
					now = c
				}
			}
			was, had := prev.owner.get(k)
			if !had {
				was = -1
			}
			if now != was {
				owners[k] = now
				moved = append(moved, k)
			}
		}
	}
	g.owner = prev.owner.with(owners)
	notes := maps.Clone(ch.notes)
	if notes == nil {
		notes = map[int64]bool{}
	}
	if len(moved) > 0 {
		err := addRows(ctx, tx, `SELECT DISTINCT note_id FROM links WHERE key IN (SELECT value FROM json_each(?))`,
			[]any{jsonArg(moved)}, notes)
		if err != nil {
			return nil, false, fmt.Errorf("read notes of moved keys: %w", err)
		}
	}

	// Notes: read again with their links, or deleted.
	ids := slices.Sorted(maps.Keys(notes))
	read := map[int64]noema.MentionNote{}
	links := map[int64][]linkAt{}
	if len(ids) > 0 {
		arg := intsArg(ids)
		err := eachRow(ctx, tx, `SELECT n.id, n.path, n.title, n.modified_ns, COALESCE(a.accessed_ns, 0)
			FROM notes n LEFT JOIN access a ON a.path = n.path WHERE n.id IN (SELECT value FROM json_each(?))`,
			[]any{arg}, func(rows *sql.Rows) error {
				n, err := scanMentionNote(rows)
				read[n.ID] = n
				return err
			})
		if err != nil {
			return nil, false, fmt.Errorf("read notes: %w", err)
		}
		err = eachRow(ctx, tx, `SELECT note_id, key, pos FROM links WHERE note_id IN (SELECT value FROM json_each(?))`,
			[]any{arg}, func(rows *sql.Rows) error {
				var id int64
				var l linkAt
				if err := rows.Scan(&id, &l.key, &l.pos); err != nil {
					return err
				}
				links[id] = append(links[id], l)
				return nil
			})
		if err != nil {
			return nil, false, fmt.Errorf("read links: %w", err)
		}
	}
	// The inverted lists' edits, by concept.
	type entry struct{ note, at int32 }
	removes := map[int32]map[int32]bool{}
	adds := map[int32][]entry{}
	g.notes = ns.p // resolve and slot read the graph being built
	for _, id := range ids {
		i, numbered := g.slot(id)
		var old *noema.MentionNote
		if numbered && !ns.p.at(i).Deleted {
			old = ns.p.at(i)
		}
		n, live := read[id]
		if !live {
			if old == nil {
				continue // created and deleted since prev
			}
			for _, c := range old.Concepts {
				if removes[c] == nil {
					removes[c] = map[int32]bool{}
				}
				removes[c][i] = true
			}
			*ns.set(i) = noema.MentionNote{ID: id, Deleted: true}
			g.holes++
			continue
		}
		n.Order, n.Concepts = g.resolve(links[id])
		if !numbered {
			if last := ns.p.len() - 1; last >= 0 && ns.p.at(int32(last)).ID > id {
				return nil, false, nil // numbering by row id would break
			}
			i = ns.append(n)
			g.notes = ns.p
		} else {
			if ns.p.at(i).Deleted {
				g.holes--
			}
			if old != nil && slices.Equal(old.Order, n.Order) {
				*ns.set(i) = n
				continue // same concepts at the same places
			}
			if old != nil {
				for _, c := range old.Concepts {
					if removes[c] == nil {
						removes[c] = map[int32]bool{}
					}
					removes[c][i] = true
				}
			}
			*ns.set(i) = n
		}
		for p, c := range n.Order {
			adds[c] = append(adds[c], entry{i, int32(p)})
		}
	}
	g.notes = ns.p

	// Accesses of notes not read again above.
	if len(ch.access) > 0 {
		err := eachRow(ctx, tx, `SELECT n.id, COALESCE(a.accessed_ns, 0) FROM notes n LEFT JOIN access a ON a.path = n.path
			WHERE n.path IN (SELECT value FROM json_each(?))`, []any{jsonArg(slices.Sorted(maps.Keys(ch.access)))}, func(rows *sql.Rows) error {
			var id, acc int64
			if err := rows.Scan(&id, &acc); err != nil {
				return err
			}
			if notes[id] {
				return nil
			}
			if i, ok := g.Note(id); ok && !ns.p.at(i).Accessed.Equal(timeOf(acc)) {
				ns.set(i).Accessed = timeOf(acc)
			}
			return nil
		})
		if err != nil {
			return nil, false, fmt.Errorf("read accesses: %w", err)
		}
	}
	g.notes = ns.p

	// Rewrite the lists of the concepts whose notes changed.
	for c := range joinKeys(removes, adds) {
		old := cs.p.at(c)
		add := adds[c]
		slices.SortFunc(add, func(a, b entry) int { return cmp.Compare(a.note, b.note) })
		rm := removes[c]
		notesOut := make([]int32, 0, len(old.Notes)+len(add)-len(rm))
		atOut := make([]int32, 0, cap(notesOut))
		k := 0
		for x, i := range old.Notes {
			for k < len(add) && add[k].note < i {
				notesOut, atOut = append(notesOut, add[k].note), append(atOut, add[k].at)
				k++
			}
			if rm[i] {
				continue
			}
			notesOut, atOut = append(notesOut, i), append(atOut, old.At[x])
		}
		for ; k < len(add); k++ {
			notesOut, atOut = append(notesOut, add[k].note), append(atOut, add[k].at)
		}
		nc := cs.set(c)
		nc.Notes, nc.At = notesOut, atOut
	}
	g.concepts = cs.p
	return g, true, nil
}

// joinKeys returns the keys of a and b, each once.
func joinKeys[V, W any](a map[int32]V, b map[int32]W) map[int32]bool {
	out := make(map[int32]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// pageBits sets the size of the pages a graph's notes and concepts are
// kept in: a refresh copies the pages it changes, not the whole list.
const (
	pageBits = 8
	pageSize = 1 << pageBits
)

// paged is a list kept in pages of pageSize (the last one may be
// shorter). Pages are shared between graphs and never written once a
// graph is returned.
type paged[T any] [][]T

func (p paged[T]) len() int {
	if len(p) == 0 {
		return 0
	}
	return (len(p)-1)<<pageBits + len(p[len(p)-1])
}

func (p paged[T]) at(i int32) *T { return &p[i>>pageBits][i&(pageSize-1)] }

// pagedEdit builds a paged list from another, copying a page the first
// time it changes it.
type pagedEdit[T any] struct {
	p   paged[T]
	own []bool // pages copied (or created) by this edit
}

func editPaged[T any](p paged[T]) *pagedEdit[T] {
	return &pagedEdit[T]{p: slices.Clone(p), own: make([]bool, len(p))}
}

// page makes page k this edit's own.
func (e *pagedEdit[T]) page(k int) {
	if !e.own[k] {
		e.p[k] = append(make([]T, 0, pageSize), e.p[k]...)
		e.own[k] = true
	}
}

// set returns the element i, to be changed.
func (e *pagedEdit[T]) set(i int32) *T {
	e.page(int(i >> pageBits))
	return e.p.at(i)
}

// append adds v at the end and returns its number.
func (e *pagedEdit[T]) append(v T) int32 {
	n := e.p.len()
	if n&(pageSize-1) == 0 {
		e.p = append(e.p, make([]T, 0, pageSize))
		e.own = append(e.own, true)
	}
	k := len(e.p) - 1
	e.page(k)
	e.p[k] = append(e.p[k], v)
	return int32(n)
}

// overlay is a map shared between graphs: a base map never written once
// shared, and the changes made since it was built (-1: removed). It is
// folded into a new base when the changes grow past a sixteenth of it.
type overlay struct {
	base, delta map[string]int32
}

func (o overlay) get(k string) (int32, bool) {
	if v, ok := o.delta[k]; ok {
		return v, v >= 0
	}
	v, ok := o.base[k]
	return v, ok
}

// with returns o with the changes (-1: removed) made, leaving o as it is.
func (o overlay) with(changes map[string]int32) overlay {
	if len(changes) == 0 {
		return o
	}
	if len(o.delta)+len(changes) <= 1024+len(o.base)/16 {
		delta := maps.Clone(o.delta)
		if delta == nil {
			delta = make(map[string]int32, len(changes))
		}
		maps.Copy(delta, changes)
		return overlay{base: o.base, delta: delta}
	}
	base := maps.Clone(o.base)
	if base == nil {
		base = map[string]int32{}
	}
	for _, m := range []map[string]int32{o.delta, changes} {
		for k, v := range m {
			if v < 0 {
				delete(base, k)
			} else {
				base[k] = v
			}
		}
	}
	return overlay{base: base}
}
